package browsertest

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// fatalRecorder keeps the message of Fatalf instead of ending the test,
// so that the test can read what a failed step says.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper()                        {}
func (r *fatalRecorder) Fatalf(format string, a ...any) { r.msg = fmt.Sprintf(format, a...) }

// A step that fails (here a wait that times out) says what the page
// showed: its address, the chat's data attributes, its text, and the
// path of a screenshot that is there after the test.
func TestDoSaysWhatThePageShowed(t *testing.T) {
	var b Browser
	defer b.Close()
	ctx := b.Tab(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><section id="chat" data-busy="true" data-seq="7"><p>the page's own words</p></section>`)
	}))
	defer srv.Close()
	Do(t, ctx, "open the page", chromedp.Navigate(srv.URL+"/here"), chromedp.WaitVisible("#chat"))

	rec := &fatalRecorder{TB: t}
	Do(rec, ctx, "wait in vain", chromedp.Poll[chromedp.Void](`false`, chromedp.WithPollingTimeout(100*time.Millisecond)))
	for _, want := range []string{"wait in vain: ", "page " + srv.URL + "/here", `"busy":"true"`, `"seq":"7"`, "the page's own words"} {
		if !strings.Contains(rec.msg, want) {
			t.Errorf("the failure lacks %q:\n%s", want, rec.msg)
		}
	}
	m := regexp.MustCompile(`(?m)^screenshot (.+)$`).FindStringSubmatch(rec.msg)
	if m == nil {
		t.Fatalf("the failure names no screenshot:\n%s", rec.msg)
	}
	shot, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatalf("the screenshot: %v", err)
	}
	os.RemoveAll(filepath.Dir(m[1]))
	if _, err := png.Decode(bytes.NewReader(shot)); err != nil {
		t.Errorf("the screenshot is no PNG: %v", err)
	}

	rec = &fatalRecorder{TB: t}
	if got := Text(rec, ctx, "#chat p"); got != "the page's own words" || rec.msg != "" {
		t.Errorf("Text = %q, failure %q", got, rec.msg)
	}
}

// Enter is one key press: a box whose keydown handler takes Enter gets no
// line break (chromedp's kb.Enter would type one after the handler ran),
// and a box without such a handler gets one.
func TestEnterIsOneKeyPress(t *testing.T) {
	var b Browser
	defer b.Close()
	ctx := b.Tab(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><textarea id="taken"></textarea><textarea id="plain"></textarea><script>
			document.querySelector("#taken").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); e.target.dataset.sent = e.target.value; } });
		</script>`)
	}))
	defer srv.Close()
	// The boxes are filled and focused by script: Enter is what is tested.
	focus := func(id, text string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`(() => { const b = document.querySelector("#` + id + `"); b.value = "` + text + `"; b.focus(); })()`)
	}
	Do(t, ctx, "type", chromedp.Navigate(srv.URL), chromedp.Poll[chromedp.Void](`document.querySelector("#plain")`),
		focus("taken", "sent"), Enter(), focus("plain", "line"), Enter())
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify([document.querySelector("#taken").value, document.querySelector("#taken").dataset.sent, document.querySelector("#plain").value])`))
	if err != nil || got != `["sent","sent","line\n"]` {
		t.Errorf("the boxes after Enter: %s %v", got, err)
	}
}
