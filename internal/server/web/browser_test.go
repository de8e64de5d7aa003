package web

import (
	"bytes"
	"context"
	"flag"
	"image/png"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox"
)

var screenshots = flag.String("screenshots", "", "keep the browser tests' PNG screenshots in this directory (default: a temp dir)")

// chromium finds Debian's chromium ($CHROMIUM overrides). The browser
// tests need it: CI installs it (apt-get install -y chromium).
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Fatal("the web page tests need a Chromium browser: install it (Debian: apt-get install -y chromium) or set CHROMIUM to its path")
	return ""
}

// browse serves the pages (and the test API) over h and starts a headless
// Chromium; it returns the server's URL and the browser's context.
func browse(t *testing.T, h *engine.Host, o Options) (string, context.Context) {
	t.Helper()
	url := serve(t, h, o)
	return url, browser(t)
}

// serve serves the pages and the test API over h.
func serve(t *testing.T, h *engine.Host, o Options) string {
	srv := httptest.NewServer(apiServer(h, o))
	t.Cleanup(srv.Close)
	return srv.URL
}

// shared is the one headless Chromium of the package's tests (started on
// first use; each test gets its own tab). Starting a browser costs seconds
// on a busy machine, a tab almost nothing.
var shared struct {
	once   sync.Once
	ctx    context.Context // the browser's first tab
	err    error
	cancel func()
}

// browser opens a tab in the shared headless Chromium; cleanup closes it.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromium(t)
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "openseek-web-chromium-")
		if err != nil {
			shared.err = err
			return
		}
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.UserDataDir(dir), chromedp.WindowSize(1100, 900),
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelTab := chromedp.NewContext(actx)
		shared.ctx = ctx
		shared.cancel = func() { cancelTab(); cancelAlloc(); os.RemoveAll(dir) }
		shared.err = chromedp.Do(ctx) // starts the browser
	})
	if shared.err != nil {
		t.Fatalf("starting %s: %v", path, shared.err)
	}
	tab, cancelTab := chromedp.NewContext(shared.ctx)
	ctx, cancelTime := context.WithTimeout(tab, 60*time.Second)
	t.Cleanup(func() { cancelTime(); cancelTab() })
	return ctx
}

// TestMain stops the shared browser after the tests; the test binary is
// also the sandbox's helper (sandbox.Main) for the tests that run with it.
func TestMain(m *testing.M) {
	sandbox.Main()
	flag.Parse()
	code := m.Run()
	if shared.cancel != nil {
		shared.cancel()
	}
	os.Exit(code)
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// screenshot saves a full-page PNG and checks it decodes to a page-sized
// image.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	keepShot(t, name, b, 800, 300)
}

// viewportShot saves what the (emulated) viewport shows.
func viewportShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	keepShot(t, name, b, 300, 300)
}

// keepShot checks a screenshot decodes to at least minW x minH and keeps
// it in -screenshots (default: a temp dir).
func keepShot(t *testing.T, name string, b []byte, minW, minH int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot %s is not a PNG: %v", name, err)
	}
	if r := img.Bounds(); r.Dx() < minW || r.Dy() < minH {
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
		chromedp.Navigate(url+"/"), chromedp.WaitVisible("#new-session"), chromedp.Click("#new-session"),
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
	do(t, vctx, "open the viewer", chromedp.Navigate(vurl+"/sessions/"+ids[0].ID), chromedp.WaitVisible("#timeline"))
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
	do(t, ctx, "open the list", chromedp.Navigate(url+"/"), chromedp.Click("#new-session"), chromedp.WaitVisible("#prompt"),
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
	do(t, ctx, "open the list", chromedp.Navigate(url+"/"), chromedp.WaitVisible("#new-session"))
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
	do(t, ctx, "open a session", chromedp.Navigate(url+"/"), chromedp.Click("#new-session"), chromedp.WaitVisible("#prompt"),
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
