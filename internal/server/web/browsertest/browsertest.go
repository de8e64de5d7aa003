// Package browsertest drives Debian's chromium, headless, for the tests of
// the web pages (package web's, and the real binary's in cmd/openseek):
// one browser per test binary, a tab per test, screenshots.
//
// A machine without chromium skips these tests, naming how to install it,
// unless OPENSEEK_E2E=1 (CI), where a missing browser fails them.
package browsertest

import (
	"bytes"
	"context"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/e2etest"
)

// Chromium returns the path of a Chromium browser ($CHROMIUM overrides).
// Without one it skips t, or fails it under OPENSEEK_E2E=1.
func Chromium(t testing.TB) string {
	t.Helper()
	return e2etest.Need(t, "Debian: apt-get install -y chromium, or set CHROMIUM to its path", os.Getenv("CHROMIUM"), "chromium-browser", "google-chrome", "chromium")
}

// Browser is one headless Chromium with its own profile directory.
type Browser struct {
	once   sync.Once
	ctx    context.Context // the browser's first tab
	err    error
	cancel func()
}

// StepLimit bounds one Do or Text call. The limit is a step's, not the
// tab's: a test of many steps takes longer on a busy machine without
// any step being stuck (one took 42 s of a former whole-tab minute at a
// load of 36 on 2 cores).
const StepLimit = time.Minute

// Tab opens a tab in b, starting the browser on first use (starting one
// costs seconds on a busy machine, a tab almost nothing); cleanup closes
// the tab. The tab lives as long as the test, to a minute before the
// test binary's deadline (go test -timeout), so that a step still
// waiting then fails saying what the page showed instead of the binary
// panicking; Do and Text bound each step by StepLimit.
func (b *Browser) Tab(t testing.TB) context.Context {
	t.Helper()
	path := Chromium(t)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "openseek-chromium-")
		if err != nil {
			b.err = err
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
		b.ctx = ctx
		b.cancel = func() { cancelTab(); cancelAlloc(); os.RemoveAll(dir) }
		b.err = chromedp.Do(ctx) // starts the browser
	})
	if b.err != nil {
		t.Fatalf("starting %s: %v", path, b.err)
	}
	tab, cancelTab := chromedp.NewContext(b.ctx)
	ctx, cancelTime := tab, context.CancelFunc(func() {})
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := dt.Deadline(); ok {
			ctx, cancelTime = context.WithDeadline(tab, end.Add(-min(time.Minute, time.Until(end)/4)))
		}
	}
	t.Cleanup(func() { cancelTime(); cancelTab() })
	// The first run on a context opens its tab, which then lives as long
	// as that run's context: open it here, so that it is not a step's.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return ctx
}

// Close stops the browser if it was started (call it from TestMain).
func (b *Browser) Close() {
	if b.cancel != nil {
		b.cancel()
	}
}

// Do runs steps in the tab, within StepLimit, and fails t with what when
// one fails. The failure says what the page showed then (Page): its
// address, the state the chat keeps in data attributes, its text and a
// screenshot, so that a wait that timed out on a busy machine can be
// told from a page that went wrong.
func Do(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	step, cancel := context.WithTimeout(ctx, StepLimit)
	defer cancel()
	if err := chromedp.Do(step, steps...); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, Page(t, ctx))
	}
}

// Enter presses Enter as a keyboard does: one keydown that carries the
// key's text, so that a page whose handler takes the key
// (preventDefault) gets no line break, and a box that does not gets one.
// chromedp's kb.Enter sends the text as a char event of its own, which
// a handler cannot cancel: it types a line break into the box after the
// page took the keydown — on a busy machine after the page had sent and
// cleared the box.
func Enter() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		key := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: "Enter", Code: "Enter",
			WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13, Text: "\r", UnmodifiedText: "\r"}
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, key); err != nil {
			return err
		}
		key.Type, key.Text, key.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, key)
		return err
	})
}

// pageState is what Page reads from the tab: the end of the text, where
// the newest of a conversation is.
const pageState = `(() => {
	const chat = document.querySelector("#chat");
	const text = document.body ? document.body.innerText : "";
	return "page " + location.href + "\nchat " + JSON.stringify(chat ? {...chat.dataset} : null) +
		"\ntext (the last 4000 characters):\n" + text.slice(-4000);
})()`

// Page describes what the tab shows, for a failure's message: the
// address, the chat's data attributes, the page's text, and the path of
// a screenshot of the viewport. The screenshot goes to t.ArtifactDir
// with go test -artifacts, else to a directory that outlives the test
// (a failure's evidence is worth the few kilobytes). It works on a tab
// whose context has ended, as long as the browser runs.
func Page(t testing.TB, ctx context.Context) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](pageState))
	if err != nil {
		state = "the page could not be read: " + err.Error()
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return state + "\nno screenshot: " + err.Error()
	}
	dir := ""
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		dir = t.ArtifactDir()
	} else if dir, err = os.MkdirTemp("", "openseek-browser-failure-"); err != nil {
		return state + "\nno screenshot: " + err.Error()
	}
	path := filepath.Join(dir, "page.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		return state + "\nno screenshot: " + err.Error()
	}
	return state + "\nscreenshot " + path
}

// Text is the text of the first element matching sel (waiting for it,
// within StepLimit).
func Text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	step, cancel := context.WithTimeout(ctx, StepLimit)
	defer cancel()
	s, err := chromedp.Run(step, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("text of %s: %v\n%s", sel, err, Page(t, ctx))
	}
	return s
}

// Screenshot saves a full-page PNG of the tab as dir/name (dir "" = a
// temp dir of the test) and checks that it decodes to an image at least
// minWidth pixels wide and 300 high; it returns the file's path.
func Screenshot(t testing.TB, ctx context.Context, dir, name string, minWidth int) string {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot %s is not a PNG: %v", name, err)
	}
	if r := img.Bounds(); r.Dx() < minWidth || r.Dy() < 300 {
		t.Errorf("screenshot %s is %v", name, r)
	}
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
	return path
}
