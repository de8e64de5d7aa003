package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// In a real browser: while the build check runs after an edit, the page
// shows "checking: <command>" with its elapsed time counting; its result
// replaces that line, with a failure's output.
func TestBrowserShowsTheRunningCheck(t *testing.T) {
	home := t.TempDir()
	gate := filepath.Join(t.TempDir(), "go-on")
	// The check waits for the test to let it end, so the page is seen
	// while it runs; then it fails with output.
	check := "while [ ! -e " + gate + " ]; do sleep 0.05; done; echo 'main.go:4:2: undefined: x'; exit 1"
	if err := os.MkdirAll(filepath.Join(home, ".openseek"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[verify]\ncommand = " + `"` + strings.ReplaceAll(check, `"`, `\"`) + `"` + "\nmax_repairs = 0\n"
	if err := os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "w1", Name: "write", Args: `{"path":"main.go","content":"package main\n"}`}),
		llmtest.Text("done"),
	)
	h := newHost(t, srv, func(o *engine.Options) { o.Home = home })
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "open a session", chromedp.Navigate(url+"/#token="+testToken), chromedp.Click("#new-session"), chromedp.WaitVisible("#prompt"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "edit main.go"), enter(), chromedp.WaitVisible(".card.check.pending"))
	if got := textOf(t, ctx, ".card.check.pending .card-head"); !strings.HasPrefix(got, "checking: "+check) {
		t.Errorf("running check %q", got)
	}
	do(t, ctx, "the elapsed time counts", chromedp.Poll[chromedp.Void](`document.querySelector(".card.check.pending .elapsed").textContent === "1s"`))
	screenshot(t, ctx, "checking.png")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "the result replaces it", chromedp.WaitVisible(".card.check.done.error"), chromedp.WaitVisible(".msg.turn-summary"))
	got := textOf(t, ctx, ".card.check.done")
	if !strings.HasPrefix(got, "✗ check failed (exit 1): "+check) || !strings.Contains(got, "main.go:4:2: undefined: x") || strings.Contains(got, "checking:") {
		t.Errorf("finished check %q", got)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".card.check").length`)); n != 1 {
		t.Errorf("%d check cards, want the running one replaced", n)
	}
}
