//go:build !headless

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/server/web/browsertest"
)

// `serve --http --workspace DIR` serves a second workspace beside --dir's
// with the default sandbox: the web app's picker switches to it, a session
// started there works in that directory (its command's file lands there,
// not in the first), and the sidebar lists the session.
func TestWebAppTwoWorkspacesBinary(t *testing.T) {
	var b browsertest.Browser
	defer b.Close()
	ctx := b.Tab(t)
	ws, other, home := t.TempDir(), t.TempDir(), t.TempDir()
	model := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "w1", Name: "shell", Args: `{"cmd":"touch made-here.txt && echo made"}`}),
		llmtest.Text("Made it."),
	)
	s := startHTTP(t, ws, home, append(modelArgs(model), "serve", "--http", "127.0.0.1:0", "--workspace", other)...)
	code, body, _ := s.do(t, "GET", "/w/1/v1/health", "", nil)
	var health struct{ Workspace string }
	if json.Unmarshal([]byte(body), &health); code != 200 || health.Workspace != other {
		t.Errorf("GET /w/1/v1/health = %d %s, want workspace %s", code, body, other)
	}
	browsertest.Do(t, ctx, "open the printed URL", chromedp.Navigate(s.url.String()), chromedp.WaitVisible("#workspaces"))
	browsertest.Do(t, ctx, "pick the second workspace", chromedp.Click(`#workspaces a[href="/w/1/"]`), chromedp.WaitVisible(`#workspaces a[aria-current="page"][href="/w/1/"]`))
	browsertest.Do(t, ctx, "start a session", chromedp.Click("#new-session"), chromedp.WaitVisible("#prompt"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
	browsertest.Do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "make the file"), browsertest.Enter(), chromedp.WaitVisible(".msg.turn-summary"))
	if _, err := os.Stat(filepath.Join(other, "made-here.txt")); err != nil {
		t.Errorf("the command did not run in the second workspace: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "made-here.txt")); err == nil {
		t.Error("the command ran in the first workspace")
	}
	id, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#chat").dataset.session`))
	if err != nil {
		t.Fatal(err)
	}
	browsertest.Do(t, ctx, "the sidebar lists it", chromedp.WaitVisible(`#session-nav li[data-id="`+id+`"]`))
	if code, _, _ := s.do(t, "GET", "/v1/sessions/"+id, "", nil); code != 404 {
		t.Errorf("the first workspace has the second's session: %d", code)
	}
}
