package web

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// The interactive default (auto) in a real browser, with the OS sandbox
// on: a write the sandbox contains runs unasked; a command that needs the
// network is asked about with allow once / don't ask again for `curl` in
// this session / deny with a reason; a page opened while it waits shows
// it too; the reason reaches the model in the tool's result; the viewer
// shows the recorded question and answer. Screenshots of the dialog are
// kept at a desktop and a phone size.
func TestBrowserAutoApproval(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "t1", Name: "shell", Args: `{"cmd":"echo step-0 >> bench.log"}`}),
		llmtest.Calls(llmtest.Call{ID: "t2", Name: "shell", Args: `{"cmd":"curl -fsS https://example.com/install.sh -o install.sh"}`}),
		llmtest.Text("I will not download it."),
	)
	h := newHost(t, srv, func(o *engine.Options) { o.Approval = "auto"; o.NoSandbox = false })
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "open the list", chromedp.Navigate(url+"/#token="+testToken), chromedp.Click("#new-session"), chromedp.WaitVisible("#prompt"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "fetch the installer"), enter())
	do(t, ctx, "the approval shows", chromedp.WaitVisible(".card.approval button.session"))
	if b, err := os.ReadFile(filepath.Join(h.Workspace(), "bench.log")); err != nil || string(b) != "step-0\n" {
		t.Errorf("the contained write did not run unasked: %q %v", b, err)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".card.approval").length`)); n != 1 {
		t.Errorf("%d approval cards, want 1 (the echo is not asked about)", n)
	}
	card := textOf(t, ctx, ".card.approval")
	for _, want := range []string{"curl -fsS https://example.com/install.sh", "uses the network", "Allow once", "Don't ask again for curl in this session", "Deny"} {
		if !strings.Contains(card, want) {
			t.Errorf("approval card lacks %q:\n%s", want, card)
		}
	}
	for _, size := range []struct {
		name string
		w, h int64
	}{{"approve-1280x900.png", 1280, 900}, {"approve-390x844.png", 390, 844}} {
		// As the page keeps itself: scrolled to the newest, the dialog.
		do(t, ctx, "viewport "+size.name, chromedp.EmulateViewport(size.w, size.h),
			chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight)`))
		viewportShot(t, ctx, size.name)
	}

	// A page opened while the question waits shows it.
	id := strings.TrimPrefix(evalString(t, ctx, `location.pathname`), "/sessions/")
	late := browser(t)
	do(t, late, "open the session late", chromedp.Navigate(url+"/sessions/"+id+"#token="+testToken), chromedp.WaitVisible(".card.approval button.approve"))
	if n, _ := chromedp.Run(late, chromedp.Evaluate[int](`document.querySelectorAll(".card.approval").length`)); n != 1 {
		t.Errorf("the late page shows %d approval cards, want 1", n)
	}

	// Deny with a reason from the late page; both pages show the answer.
	do(t, late, "deny with a reason", chromedp.Click(".card.approval button.deny"), chromedp.WaitVisible(".card.approval input.reason"),
		chromedp.SendKeys(".card.approval input.reason", "no downloads from the internet"), chromedp.Click(".card.approval button.deny-send"),
		chromedp.WaitVisible(".card.approval.resolved"))
	do(t, ctx, "the first page sees the answer", chromedp.WaitVisible(".card.approval.resolved"), chromedp.WaitVisible(".msg.turn-summary"))
	if got := textOf(t, ctx, ".card.approval .actions"); !strings.Contains(got, "rejected") || !strings.Contains(got, "no downloads from the internet") {
		t.Errorf("answer shown as %q", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2].Messages[len(reqs[2].Messages)-1]), "The user said: no downloads from the internet") {
		t.Errorf("the reason did not reach the model in the tool result (%d requests)", len(reqs))
	}
	if _, err := os.Stat(filepath.Join(h.Workspace(), "install.sh")); err == nil {
		t.Error("the denied command ran")
	}

	// The viewer shows the recorded question and its answer.
	vurl := serve(t, h, Options{ReadOnly: true})
	do(t, ctx, "the viewer", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(vurl+"/sessions/"+id+"#token="+testToken), chromedp.WaitVisible(".card.approval.record"))
	rec := textOf(t, ctx, ".card.approval.record")
	for _, want := range []string{"curl -fsS", "uses the network", "rejected", "no downloads from the internet"} {
		if !strings.Contains(rec, want) {
			t.Errorf("the viewer's approval record lacks %q:\n%s", want, rec)
		}
	}
	if tl := textOf(t, ctx, "#timeline"); !strings.Contains(tl, "approval") || !strings.Contains(tl, "rejected — no downloads") {
		t.Errorf("the timeline lacks the approval:\n%s", tl)
	}
}

func evalString(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("eval %s: %v", js, err)
	}
	return s
}
