package web

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox"
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

// browser opens a tab in the package's shared headless Chromium.
func browser(t *testing.T) context.Context { return browsers.Tab(t) }

// TestMain stops the shared browser after the tests.
func TestMain(m *testing.M) {
	sandbox.Main()
	flag.Parse()
	code := m.Run()
	browsers.Close()
	os.Exit(code)
}

var (
	do     = browsertest.Do
	textOf = browsertest.Text
	enter  = browsertest.Enter // a prompt's Enter: see browsertest.Enter
)

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	browsertest.Screenshot(t, ctx, *screenshots, name, 800)
}

// viewportShot saves what the (emulated) viewport shows.
func viewportShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot %s is not a PNG: %v", name, err)
	}
	if r := img.Bounds(); r.Dx() < 300 || r.Dy() < 300 {
		t.Errorf("screenshot %s is %v", name, r)
	}
	dir := *screenshots
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", filepath.Join(dir, name))
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
		chromedp.SendKeys("#prompt", "run the echo"), enter())
	do(t, ctx, "wait for the turn", chromedp.WaitVisible(".card.tool.done"), chromedp.WaitVisible(".msg.turn-summary"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".answer.streaming").length === 0`, chromedp.WithPollingInterval(50*time.Millisecond)))

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
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "make the file"), enter())
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
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "write a lot"), enter(), chromedp.WaitVisible(".answer.streaming"))
	if st := textOf(t, ctx, "#state"); st != "working…" {
		t.Errorf("state during the turn %q", st)
	}
	do(t, ctx, "steer", chromedp.SendKeys("#prompt", "shorter please"), enter(),
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
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "again"), enter(), chromedp.WaitVisible(".msg.turn-summary"))
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
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "talk"), enter(), chromedp.WaitVisible(".answer.streaming"))
	srv.CloseClientConnections()
	do(t, ctx, "the turn ends", chromedp.WaitVisible(".msg.turn-summary"))
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll(".banner")].map(b => b.textContent).join("|")`)); !strings.Contains(got, "reconnected") {
		t.Errorf("banners %q", got)
	}
	if got := textOf(t, ctx, ".msg.assistant .answer"); strings.TrimSpace(got) != strings.TrimSpace(words) {
		t.Errorf("the answer after the reconnect:\n%q\nwant\n%q", got, words)
	}
}

// The everyday page: the workspace's warning shows once in a notice area
// that does not stick over the conversation and can be dismissed; the
// page has a favicon; Cancel shows only while a turn runs; a live shell
// card shows an exit badge, not the footer meant for the model; the
// totals under the log follow each turn in the server's words; every
// time on the page has one format.
func TestBrowserEverydayPage(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "e1", Name: "shell", Args: `{"cmd":"echo from-the-shell"}`}),
		llmtest.Text("It printed from-the-shell."),
	)
	// A base URL: the host warns that requests go to its /chat/completions.
	h := newHost(t, srv, func(o *engine.Options) { o.APIURL = strings.TrimSuffix(srv.URL(), "/chat/completions") })
	if len(h.Warnings()) == 0 {
		t.Fatal("no base-URL warning")
	}
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "open the list", chromedp.Navigate(url+"/#token="+testToken), chromedp.WaitVisible("#banners .banner.warn .close"))
	if pos, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#banners")).position`)); pos == "sticky" || pos == "fixed" {
		t.Errorf("the notice area is %s over the conversation", pos)
	}
	icon, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => { const l = document.querySelector("link[rel=icon]"); if (!l) return "no icon";
		const r = await fetch(l.href); return r.status + " " + r.headers.get("content-type"); })()`, chromedp.EvalAwaitPromise))
	if err != nil || icon != "200 image/svg+xml" {
		t.Errorf("favicon: %q %v", icon, err)
	}
	do(t, ctx, "dismiss the warning", chromedp.Click("#banners .banner.warn .close"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#banners .banner").length === 0`))
	startSession(t, ctx, "")
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#banners .banner").length`)); n != 0 {
		t.Errorf("a dismissed warning shows again: %d banners", n)
	}
	if hidden, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#cancel").offsetParent === null`)); !hidden {
		t.Error("Cancel shows on an idle session")
	}
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "echo it"), enter(), chromedp.WaitVisible("#tool-e1.done"), chromedp.WaitVisible(".msg.turn-summary"))
	card := textOf(t, ctx, "#tool-e1")
	if strings.Contains(card, "<system>") || strings.Contains(card, "exit=") || !strings.Contains(card, "from-the-shell") {
		t.Errorf("live card %q", card)
	}
	if got := textOf(t, ctx, "#tool-e1 .exit"); got != "exit 0" {
		t.Errorf("live exit badge %q", got)
	}
	if hidden, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#cancel").offsetParent === null`)); !hidden {
		t.Error("Cancel shows after the turn")
	}
	live := textOf(t, ctx, "#totals")
	if !regexp.MustCompile(`^tokens: [1-9][0-9]* in \([0-9]+% cache hits\), [1-9][0-9]* out · cost unknown$`).MatchString(live) {
		t.Errorf("totals after the turn %q", live)
	}
	liveTime := textOf(t, ctx, ".msg.user .time")
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible("#tool-e1.done"))
	if got := textOf(t, ctx, "#totals"); got != live {
		t.Errorf("totals: live %q, rendered %q", live, got)
	}
	if got := textOf(t, ctx, "#tool-e1 .exit"); got != "exit 0" {
		t.Errorf("rendered exit badge %q", got)
	}
	if got := textOf(t, ctx, ".msg.user .time"); !regexp.MustCompile(`^\d\d:\d\d:\d\d$`).MatchString(liveTime) || len(got) != len(liveTime) {
		t.Errorf("times: live %q, rendered %q", liveTime, got)
	}
	if body := textOf(t, ctx, "#log"); strings.Contains(body, "[snapshot]") {
		t.Errorf("the conversation shows a snapshot marker: %s", body)
	}
	screenshot(t, ctx, "everyday.png")
}

// The session page (a warning, tool cards with an exit badge, a turn's
// summary) and the viewer, at a desktop's and a phone's size: nothing is
// wider than the screen. With -screenshots DIR the PNGs are kept there.
func TestBrowserScreens(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "s1", Name: "shell", Args: `{"cmd":"printf 'ok\\n'; exit 3"}`}),
		llmtest.Text("The command failed with **exit code 3**; its output was `ok`."),
	)
	h := newHost(t, srv, func(o *engine.Options) { o.APIURL = strings.TrimSuffix(srv.URL(), "/chat/completions") })
	url, ctx := browse(t, h, Options{})
	startSession(t, ctx, url)
	do(t, ctx, "a turn", chromedp.SendKeys("#prompt", "run it"), enter(), chromedp.WaitVisible(".msg.turn-summary"))
	if got := textOf(t, ctx, "#tool-s1 .exit"); got != "exit 3" {
		t.Errorf("exit badge %q", got)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#tool-s1 .brief").length`)); n != 0 {
		t.Errorf("the card repeats the command its arguments show")
	}
	ids, _ := h.SessionInfos()
	vurl := serve(t, h, Options{ReadOnly: true})
	sizes := func(ctx context.Context, page, ready string) {
		for _, size := range []struct {
			name string
			w, h int64
		}{{"1280x900", 1280, 900}, {"390x844", 390, 844}} {
			do(t, ctx, "resize", chromedp.EmulateViewport(size.w, size.h), chromedp.WaitVisible(ready))
			wide, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			if int64(wide) > size.w {
				t.Errorf("%s: the %s page is %dpx wide", size.name, page, wide)
			}
			browsertest.Screenshot(t, ctx, *screenshots, "polish-"+page+"-"+size.name+".png", int(size.w))
		}
	}
	sizes(ctx, "session", "#banners .banner.warn")
	vctx := browsers.Tab(t)
	do(t, vctx, "open the viewer", chromedp.Navigate(vurl+"/sessions/"+ids[0].ID+"#token="+testToken), chromedp.WaitVisible("#timeline"))
	sizes(vctx, "viewer", "#timeline")
}

// startSession opens the list at url (with the token; "" = the page the
// tab shows), starts a session and waits until its stream is live.
func startSession(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if url != "" {
		do(t, ctx, "open the list", chromedp.Navigate(url+"/#token="+testToken))
	}
	// New session posts, then goes to the session's page. Wait for that
	// page to load: the page before it (another session's) has a live
	// #chat and #prompt too, and a poll does not survive the navigation.
	step, cancel := context.WithTimeout(ctx, browsertest.StepLimit)
	defer cancel()
	if _, err := chromedp.RunResponse(step, chromedp.Click("#new-session")); err != nil {
		t.Fatalf("start a session: %v\n%s", err, browsertest.Page(t, ctx))
	}
	do(t, ctx, "the new session's page", chromedp.WaitVisible("#prompt"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
}

// A session on disk that the page resumes is followed from the start of
// its stream, which replays the workspace's warnings: each still shows
// once, and one dismissed in this tab not at all.
func TestBrowserWarningShowsOnce(t *testing.T) {
	srv := llmtest.NewServer(t)
	h := newHost(t, srv, func(o *engine.Options) { o.APIURL = strings.TrimSuffix(srv.URL(), "/chat/completions") })
	seed(t, h, "diffdemo")
	url, ctx := browse(t, h, Options{})
	count := `[...document.querySelectorAll("#banners .banner-text")].filter(b => b.textContent.includes("is a base URL")).length`
	do(t, ctx, "open the session", chromedp.Navigate(url+"/sessions/diffdemo#token="+testToken),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat")?.dataset.live === "true"`))
	s, open := h.Get("diffdemo")
	if !open || s.Hub().Head() == 0 {
		t.Fatalf("the page did not resume the session (open %v), or its stream is empty", open)
	}
	// The replayed warning is in the stream: wait until the page read it all.
	do(t, ctx, "the stream caught up", chromedp.Poll[chromedp.Void](fmt.Sprintf(`Number(document.querySelector("#chat").dataset.seq) >= %d`, s.Hub().Head())))
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](count)); n != 1 {
		t.Errorf("the warning shows %d times", n)
	}
	do(t, ctx, "dismiss it and reload", chromedp.Click("#banners .banner.warn .close"), chromedp.Reload(),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat")?.dataset.live === "true"`))
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](count)); n != 0 {
		t.Errorf("a dismissed warning shows %d times after a reload", n)
	}
}
