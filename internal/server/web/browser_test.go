package web

import (
	"context"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/server/web/browsertest"
)

var screenshots = flag.String("screenshots", "", "keep the browser tests' PNG screenshots in this directory (default: a temp dir)")

// browsers is the one headless Chromium of the package's tests.
var browsers browsertest.Browser

// browse serves the pages (and the test API) over h and opens a tab in
// the shared headless Chromium; it returns the server's URL and the tab.
func browse(t *testing.T, h *engine.Host, o Options) (string, context.Context) {
	t.Helper()
	url := serve(t, h, o)
	return url, browsers.Tab(t)
}

// serve serves the pages and the test API over h.
func serve(t *testing.T, h *engine.Host, o Options) string {
	srv := httptest.NewServer(apiServer(h, o))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestMain stops the shared browser after the tests.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	browsers.Close()
	os.Exit(code)
}

var (
	do     = browsertest.Do
	textOf = browsertest.Text
)

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	browsertest.Screenshot(t, ctx, *screenshots, name, 800)
}

// In a real browser: the list's button starts a session, a prompt typed
// in the box streams its answer in, the tool call shows as a card with
// its result, the turn's summary closes it; the viewer of the same
// session shows its timeline. Screenshots of both are kept.
func TestBrowserChat(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "I will run the command first.", Calls: []llmtest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"echo hello-from-the-tool"}`}}},
		llmtest.Reply{Text: "The command printed **hello-from-the-tool**:\n```\nhello-from-the-tool\n```\nAll done.", ChunkSize: 6, Delay: 15 * time.Millisecond},
	)
	h := newHost(t, srv, nil)
	url, ctx := browse(t, h, Options{})

	do(t, ctx, "start a session from the list",
		chromedp.Navigate(url+"/#token="+testToken), chromedp.WaitVisible("#new-session"), chromedp.Click("#new-session"),
		chromedp.WaitVisible("#prompt"), chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
	do(t, ctx, "send a prompt",
		chromedp.SendKeys("#prompt", "run the echo"), chromedp.SendKeys("#prompt", kb.Enter))
	do(t, ctx, "wait for the turn", chromedp.WaitVisible(".card.tool.done"), chromedp.WaitVisible(".msg.turn-summary"))

	if got := textOf(t, ctx, ".msg.user .text"); got != "run the echo" {
		t.Errorf("user message %q", got)
	}
	card := textOf(t, ctx, "#tool-c1")
	for _, want := range []string{"shell", "cmd: echo hello-from-the-tool", "hello-from-the-tool"} {
		if !strings.Contains(card, want) {
			t.Errorf("tool card lacks %q: %q", want, card)
		}
	}
	answer, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll(".msg.assistant .answer")].map(e => e.innerHTML).join("|")`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<strong>hello-from-the-tool</strong>", `<pre class="code"><code>hello-from-the-tool</code></pre>`, "All done."} {
		if !strings.Contains(answer, want) {
			t.Errorf("streamed answer lacks %s: %s", want, answer)
		}
	}
	if r := textOf(t, ctx, "details.reasoning summary"); r != "reasoning" {
		t.Errorf("reasoning not folded: %q", r)
	}
	if s := textOf(t, ctx, ".msg.turn-summary"); !strings.Contains(s, "finished · 2 steps") {
		t.Errorf("turn summary %q", s)
	}
	if st := textOf(t, ctx, "#state"); st != "idle" {
		t.Errorf("state after the turn %q", st)
	}
	screenshot(t, ctx, "chat.png")

	// A reload renders the same turn from the log.
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible("#tool-c1.done"))
	if got := textOf(t, ctx, ".msg.assistant:last-of-type .answer"); !strings.Contains(got, "All done.") {
		t.Errorf("reloaded answer %q", got)
	}

	ids, _ := h.SessionInfos()
	vurl, vctx := serve(t, h, Options{ReadOnly: true}), ctx
	do(t, vctx, "open the viewer", chromedp.Navigate(vurl+"/sessions/"+ids[0].ID+"#token="+testToken), chromedp.WaitVisible("#timeline"))
	rows, err := chromedp.Run(vctx, chromedp.Evaluate[int](`document.querySelectorAll("#timeline tbody tr").length`))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := h.Get(ids[0].ID)
	if want := len(s.Snapshot().Events); rows != want {
		t.Errorf("viewer timeline %d rows, log %d events", rows, want)
	}
	if n, _ := chromedp.Run(vctx, chromedp.Evaluate[int](`document.querySelectorAll("textarea, button:not(.close)").length`)); n != 0 {
		t.Errorf("the viewer shows %d controls", n)
	}
	screenshot(t, vctx, "viewer.png")
}

// With approval "ask", the page shows the request with Approve and Deny;
// Approve lets the command run and the turn finish.
func TestBrowserApproval(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "t1", Name: "shell", Args: `{"cmd":"touch approved.txt"}`}),
		llmtest.Text("created it"),
	)
	h := newHost(t, srv, func(o *engine.Options) { o.Approval = "ask" })
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "open the list", chromedp.Navigate(url+"/#token="+testToken), chromedp.Click("#new-session"), chromedp.WaitVisible("#prompt"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "make the file"+kb.Enter))
	do(t, ctx, "the approval shows", chromedp.WaitVisible(".card.approval button.approve"))
	if got := textOf(t, ctx, ".card.approval"); !strings.Contains(got, "touch approved.txt") {
		t.Errorf("approval card %q", got)
	}
	screenshot(t, ctx, "approval.png")
	do(t, ctx, "approve", chromedp.Click(".card.approval button.approve"),
		chromedp.WaitVisible(".card.approval.resolved"), chromedp.WaitVisible(".msg.turn-summary"))
	if got := textOf(t, ctx, ".card.approval .outcome"); got != "allowed once" {
		t.Errorf("approval outcome %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.Workspace(), "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
}

// A refused POST is shown to the user: with the host shut down, "New
// session" fails and says why.
func TestBrowserShowsErrors(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "open the list", chromedp.Navigate(url+"/#token="+testToken), chromedp.WaitVisible("#new-session"))
	h.Close()
	do(t, ctx, "click", chromedp.Click("#new-session"), chromedp.WaitVisible(".banner.error"))
	if got := textOf(t, ctx, ".banner.error .banner-text"); !strings.Contains(got, "Could not start a session") || !strings.Contains(got, "shutting down") {
		t.Errorf("banner %q", got)
	}
}

// While a turn runs, Enter steers it (the box is not refused), and Cancel
// stops the turn: its summary says it was interrupted.
func TestBrowserSteerAndCancel(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Text: strings.Repeat("slowly streaming words ", 200), ChunkSize: 4, Delay: 30 * time.Millisecond},
	)
	h := newHost(t, srv, nil)
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "open a session", chromedp.Navigate(url+"/#token="+testToken), chromedp.Click("#new-session"), chromedp.WaitVisible("#prompt"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "write a lot"+kb.Enter), chromedp.WaitVisible(".answer.streaming"))
	if st := textOf(t, ctx, "#state"); st != "working…" {
		t.Errorf("state during the turn %q", st)
	}
	do(t, ctx, "steer", chromedp.SendKeys("#prompt", "shorter please"+kb.Enter),
		chromedp.Poll[chromedp.Void](`document.querySelector("#prompt").value === "" && !document.querySelector("#prompt").disabled`))
	do(t, ctx, "cancel", chromedp.Click("#cancel"), chromedp.WaitVisible(".msg.turn-summary"))
	if s := textOf(t, ctx, ".msg.turn-summary"); !strings.HasPrefix(s, "interrupted") && !strings.HasPrefix(s, "aborted") {
		t.Errorf("summary after cancel %q", s)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".banner.error").length`)); n != 0 {
		errs, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll(".banner.error")].map(b => b.textContent).join("; ")`))
		t.Errorf("errors shown: %s", errs)
	}
}

// Without the token (no fragment, a fresh tab) the page shows none of the
// workspace and says how to open it; a wrong token is refused and not
// kept; the right one is moved out of the address bar.
func TestBrowserNeedsTheToken(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	seed(t, h, "diffdemo")
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "open without the token", chromedp.Navigate(url+"/"), chromedp.WaitVisible(".banner.error"))
	if got := textOf(t, ctx, ".banner.error .banner-text"); !strings.Contains(got, "#token=") {
		t.Errorf("banner %q", got)
	}
	if body := textOf(t, ctx, "body"); strings.Contains(body, "diffdemo") || strings.Contains(body, h.Workspace()) {
		t.Errorf("the page without the token shows the workspace: %s", body)
	}
	do(t, ctx, "open with a wrong token", chromedp.Navigate("about:blank"), chromedp.Navigate(url+"/#token=wrong"),
		chromedp.WaitVisible(".banner.error"))
	if got := textOf(t, ctx, ".banner.error .banner-text"); !strings.Contains(got, "refused the token") {
		t.Errorf("banner %q", got)
	}
	if kept, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`String(sessionStorage.getItem("openseek.token"))`)); kept != "null" {
		t.Errorf("a refused token is kept: %q", kept)
	}
	// The printed URL pasted into the same tab changes only the fragment.
	do(t, ctx, "open with the token", chromedp.Navigate(url+"/#token="+testToken), chromedp.WaitVisible(`.session-row[data-id="diffdemo"]`))
	if loc, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`)); loc != url+"/" {
		t.Errorf("address bar %q", loc)
	}
}

// A session on disk that is not open is resumed by the page with a POST
// (reading its stream would not), then followed live.
func TestBrowserResumesASessionOnDisk(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t, llmtest.Text("back again")), nil)
	seed(t, h, "diffdemo")
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "open the session", chromedp.Navigate(url+"/sessions/diffdemo#token="+testToken),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat")?.dataset.live === "true"`))
	if _, open := h.Get("diffdemo"); !open {
		t.Fatal("the page did not resume the session")
	}
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "again"+kb.Enter), chromedp.WaitVisible(".msg.turn-summary"))
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll(".msg.assistant .answer")].map(e => e.textContent).join("|")`)); !strings.Contains(got, "back again") {
		t.Errorf("answer %q", got)
	}
}

// A stream cut mid-turn is read again from the last event id: the page
// says it reconnected and the answer comes out whole, nothing lost or
// doubled.
func TestBrowserStreamReconnects(t *testing.T) {
	words := strings.Repeat("every word arrives once ", 40)
	h := newHost(t, llmtest.NewServer(t, llmtest.Reply{Text: words, ChunkSize: 8, Delay: 10 * time.Millisecond}), nil)
	srv := httptest.NewServer(apiServer(h, Options{}))
	t.Cleanup(srv.Close)
	ctx := browsers.Tab(t)
	do(t, ctx, "open a session", chromedp.Navigate(srv.URL+"/#token="+testToken), chromedp.Click("#new-session"), chromedp.WaitVisible("#prompt"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "talk"+kb.Enter), chromedp.WaitVisible(".answer.streaming"))
	srv.CloseClientConnections()
	do(t, ctx, "the turn ends", chromedp.WaitVisible(".msg.turn-summary"))
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll(".banner")].map(b => b.textContent).join("|")`)); !strings.Contains(got, "reconnected") {
		t.Errorf("banners %q", got)
	}
	if got := textOf(t, ctx, ".msg.assistant .answer"); strings.TrimSpace(got) != strings.TrimSpace(words) {
		t.Errorf("the answer after the reconnect:\n%q\nwant\n%q", got, words)
	}
}
