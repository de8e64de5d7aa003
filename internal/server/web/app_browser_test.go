package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/markdown"
)

// evalBool evaluates js in the tab.
func evalBool(t *testing.T, ctx context.Context, js string) bool {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// The sidebar beside the conversation: it lists the workspace's sessions
// with the open one marked, search narrows it, a link switches to another
// session, "New session" starts one that joins the list, and a session
// whose turn runs (here: waiting for an approval) is marked running in a
// page that shows another session.
func TestBrowserSidebar(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a1", Name: "shell", Args: `{"cmd":"touch x"}`}),
		llmtest.Text("done"),
	)
	h := newHost(t, srv, func(o *engine.Options) { o.Approval = "ask" })
	seed(t, h, "diffdemo")
	seed(t, h, "shelldemo")
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "open a session", chromedp.Navigate(url+"/sessions/diffdemo#token="+testToken),
		chromedp.WaitVisible(`#session-nav li[data-id="shelldemo"]`))
	if cur := textOf(t, ctx, `#session-nav a[aria-current="page"]`); cur == "" || !evalBool(t, ctx, `document.querySelector('#session-nav a[aria-current="page"]').closest("li").dataset.id === "diffdemo"`) {
		t.Errorf("the open session is not marked in the sidebar (%q)", cur)
	}
	shell := textOf(t, ctx, `#session-nav li[data-id="shelldemo"] .title`)
	word := strings.Fields(shell)[0]
	do(t, ctx, "search", chromedp.SendKeys("#session-search", word),
		chromedp.Poll[chromedp.Void](`document.querySelector('#session-nav li[data-id="diffdemo"]').hidden`))
	if evalBool(t, ctx, `document.querySelector('#session-nav li[data-id="shelldemo"]').hidden`) {
		t.Errorf("searching %q hides the session titled %q", word, shell)
	}
	do(t, ctx, "search for nothing", chromedp.SendKeys("#session-search", "zzz-no-such"), chromedp.WaitVisible("#no-match"))
	do(t, ctx, "clear the search", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector("#session-search"); s.value = ""; s.dispatchEvent(new Event("input")); })()`),
		chromedp.WaitVisible(`#session-nav li[data-id="diffdemo"]`))
	do(t, ctx, "switch", chromedp.Click(`#session-nav li[data-id="shelldemo"] a`), chromedp.WaitVisible(`#chat[data-session="shelldemo"]`))
	if !evalBool(t, ctx, `document.querySelector('#session-nav a[aria-current="page"]').closest("li").dataset.id === "shelldemo"`) {
		t.Error("after switching, the sidebar does not mark the session shown")
	}
	startSession(t, ctx, "")
	id := evalString(t, ctx, `document.querySelector("#chat").dataset.session`)
	do(t, ctx, "the new session is listed", chromedp.WaitVisible(fmt.Sprintf(`#session-nav li[data-id=%q]`, id)))
	do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "touch it"), enter(), chromedp.WaitVisible(".card.approval button.approve"))

	other := browser(t)
	do(t, other, "another session's page", chromedp.Navigate(url+"/sessions/diffdemo#token="+testToken), chromedp.WaitVisible("#session-nav"))
	if _, err := chromedp.Run(other, chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('#session-nav li[data-id=%q]')?.classList.contains("busy")`, id), chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		info, _ := h.SessionInfos()
		t.Fatalf("the running session is not marked: %v; sidebar %s; sessions %+v", err, evalString(t, other, `document.querySelector("#session-nav").outerHTML`), info)
	}
	if evalBool(t, other, `!document.querySelector('#session-nav li[data-id="diffdemo"] .running').hidden`) {
		t.Error("an idle session is marked running")
	}
	do(t, ctx, "approve", chromedp.Click(".card.approval button.approve"), chromedp.WaitVisible(".msg.turn-summary"))
	do(t, other, "the mark goes when the turn ends",
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`!document.querySelector('#session-nav li[data-id=%q]').classList.contains("busy")`, id), chromedp.WithPollingInterval(100*time.Millisecond)))
}

// One server, two workspaces (serve --http --workspace): the picker lists
// both, each workspace's sidebar lists its own sessions, and a session
// started in the second lives in the second's directory.
func TestBrowserTwoWorkspaces(t *testing.T) {
	srv := llmtest.NewServer(t)
	h1, h2 := newHost(t, srv, nil), newHost(t, srv, nil)
	seed(t, h1, "diffdemo")
	seed(t, h2, "shelldemo")
	picker := []Workspace{{Path: h1.Workspace()}, {Path: h2.Workspace(), Base: "/w/1"}}
	mux := http.NewServeMux()
	mux.Handle("/w/1/", http.StripPrefix("/w/1", apiServer(h2, Options{Base: "/w/1", Workspaces: picker})))
	mux.Handle("/", apiServer(h1, Options{Workspaces: picker}))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	ctx := browser(t)
	do(t, ctx, "the first workspace", chromedp.Navigate(ts.URL+"/#token="+testToken), chromedp.WaitVisible(`#session-nav li[data-id="diffdemo"]`))
	if n := evalString(t, ctx, `String(document.querySelectorAll("#workspaces a").length)`); n != "2" {
		t.Fatalf("the picker lists %s workspaces", n)
	}
	do(t, ctx, "switch workspace", chromedp.Click(`#workspaces a[href="/w/1/"]`), chromedp.WaitVisible(`#session-nav li[data-id="shelldemo"]`))
	if evalBool(t, ctx, `!!document.querySelector('#session-nav li[data-id="diffdemo"]')`) {
		t.Error("the second workspace lists the first's session")
	}
	if !evalBool(t, ctx, `document.querySelector('#workspaces a[aria-current="page"]').getAttribute("href") === "/w/1/"`) {
		t.Error("the picker does not mark the second workspace")
	}
	startSession(t, ctx, "")
	id := evalString(t, ctx, `document.querySelector("#chat").dataset.session`)
	if loc := evalString(t, ctx, `location.pathname`); loc != "/w/1/sessions/"+id {
		t.Errorf("the new session's page is %s", loc)
	}
	if _, ok := h2.Get(id); !ok {
		t.Errorf("session %s was not opened in the second workspace", id)
	}
	if _, ok := h1.Get(id); ok {
		t.Errorf("session %s was opened in the first workspace", id)
	}
}

// pageSizes are the screens every page is checked at: a desktop's and a
// phone's (390 px, the width of a common phone).
var pageSizes = []struct {
	name string
	w, h int64
}{{"1280x900", 1280, 900}, {"390x844", 390, 844}}

// fitsAndShoot checks, at each size, that nothing is wider than the
// viewport (no sideways scrolling) and keeps a screenshot of what shows.
func fitsAndShoot(t *testing.T, ctx context.Context, page, ready string) {
	t.Helper()
	for _, size := range pageSizes {
		do(t, ctx, "resize", chromedp.EmulateViewport(size.w, size.h), chromedp.WaitVisible(ready))
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scrollingElement.scrollWidth`))
		if err != nil || int64(wide) > size.w {
			over := evalString(t, ctx, `[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > innerWidth + 1).slice(0, 5).map(e => e.tagName + "." + e.className).join(", ")`)
			t.Errorf("%s: the %s page is %dpx wide (%v); too wide: %s", size.name, page, wide, err, over)
		}
		viewportShot(t, ctx, "app-"+page+"-"+size.name+".png")
	}
}

// Every page of the app at a desktop's and a phone's width: the list, a
// session with tool cards and a diff, the viewer.
func TestBrowserAppScreens(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	seed(t, h, "diffdemo")
	seed(t, h, "shelldemo")
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "the list", chromedp.Navigate(url+"/#token="+testToken), chromedp.WaitVisible(".session-list"))
	fitsAndShoot(t, ctx, "list", ".session-list")
	do(t, ctx, "a session", chromedp.Navigate(url+"/sessions/diffdemo"), chromedp.WaitVisible("#log"))
	fitsAndShoot(t, ctx, "session", "#log")
	do(t, ctx, "a shell session", chromedp.Navigate(url+"/sessions/shelldemo"), chromedp.WaitVisible("#log"))
	fitsAndShoot(t, ctx, "shell", "#log")
	do(t, ctx, "open a card and the changes", chromedp.Click("#tool-call_f > summary"), chromedp.Click("#changes > summary"), chromedp.WaitVisible("#changes .changes-summary"))
	fitsAndShoot(t, ctx, "shell-open", "#changes .changes-summary")
	vurl := serve(t, h, Options{ReadOnly: true})
	vctx := browser(t)
	do(t, vctx, "the viewer", chromedp.Navigate(vurl+"/sessions/diffdemo#token="+testToken), chromedp.WaitVisible("#timeline"))
	fitsAndShoot(t, vctx, "viewer", "#timeline")
}

// A tool call is a card folded to one line — tool, arguments, exit badge,
// duration — that opens to its output; live and after a reload alike.
func TestBrowserToolCardsFold(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "f1", Name: "shell", Args: `{"cmd":"echo folded-output; exit 4"}`}),
		llmtest.Text("done"),
	)
	h := newHost(t, srv, nil)
	url, ctx := browse(t, h, Options{})
	startSession(t, ctx, url)
	do(t, ctx, "a turn", chromedp.SendKeys("#prompt", "run it"), enter(), chromedp.WaitVisible(".msg.turn-summary"), chromedp.WaitVisible("#tool-f1.done .exit"))
	check := func(when string) {
		if evalBool(t, ctx, `document.querySelector("#tool-f1").open`) {
			t.Errorf("%s: the card is open", when)
		}
		head := textOf(t, ctx, "#tool-f1 > summary")
		if !regexp.MustCompile(`^shell cmd: echo folded-output; exit 4 exit 4 \d+\.\ds$`).MatchString(strings.Join(strings.Fields(head), " ")) {
			t.Errorf("%s: head line %q", when, head)
		}
		if h := evalString(t, ctx, `String(document.querySelector("#tool-f1 > summary").getBoundingClientRect().height)`); h == "" {
			t.Errorf("%s: no head", when)
		}
		if !evalBool(t, ctx, `!document.querySelector("#tool-f1 pre.result").checkVisibility()`) {
			t.Errorf("%s: the output shows on a folded card", when)
		}
		do(t, ctx, "open the card", chromedp.Click("#tool-f1 > summary"), chromedp.WaitVisible("#tool-f1 pre.result"))
		if got := textOf(t, ctx, "#tool-f1 pre.result"); !strings.Contains(got, "folded-output") || strings.Contains(got, "<system>") {
			t.Errorf("%s: output %q", when, got)
		}
	}
	check("live")
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible("#tool-f1.done"))
	check("reloaded")
}

// The changes panel shows the session's whole diff per file and its
// turns; rewinding to before the second turn (asked twice) puts the file
// back as the first turn left it and the page follows the session again.
func TestBrowserChangesAndRewind(t *testing.T) {
	h := newHost(t, twoWrites(t), nil)
	url, ctx := browse(t, h, Options{})
	startSession(t, ctx, url)
	do(t, ctx, "turn 1", chromedp.SendKeys("#prompt", "first"), enter(), chromedp.WaitVisible("#tool-r1.done"), chromedp.WaitVisible(".msg.turn-summary"))
	do(t, ctx, "turn 2", chromedp.SendKeys("#prompt", "second"), enter(), chromedp.WaitVisible("#tool-r2.done"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".msg.turn-summary").length === 2`, chromedp.WithPollingInterval(50*time.Millisecond)))
	do(t, ctx, "open the changes", chromedp.Click("#changes > summary"), chromedp.WaitVisible("#changes .diff-file"))
	if got := textOf(t, ctx, "#changes .diff-name"); !strings.Contains(got, "f.txt") {
		t.Errorf("changed file %q", got)
	}
	if got := textOf(t, ctx, "#changes pre.diff"); !strings.Contains(got, "+two") {
		t.Errorf("the whole diff %q", got)
	}
	if n := evalString(t, ctx, `String(document.querySelectorAll("#changes .turns button.rewind").length)`); n != "2" {
		t.Fatalf("%s turns to rewind to", n)
	}
	if evalBool(t, ctx, `document.querySelector('#changes li[data-turn="2"] .rewind-confirm').checkVisibility()`) {
		t.Error("the rewind is offered without asking first")
	}
	do(t, ctx, "rewind to before turn 2", chromedp.Click(`#changes li[data-turn="2"] button.rewind`), chromedp.WaitVisible(`#changes li[data-turn="2"] .rewind-confirm`),
		chromedp.Evaluate[chromedp.Void](`document.body.dataset.old = "1"`), chromedp.Click(`#changes li[data-turn="2"] .rewind-confirm`))
	// The page reloads (a new body) and follows the reopened session.
	do(t, ctx, "the page follows the session again", chromedp.WaitVisible(`body:not([data-old]) #chat[data-live="true"]`))
	if b, err := os.ReadFile(filepath.Join(h.Workspace(), "f.txt")); err != nil || string(b) != "one\n" {
		t.Errorf("f.txt after the rewind: %q %v", b, err)
	}
}

// The meter by the prompt box counts a turn's tokens as each response
// comes (here while an approval waits, before the turn's summary), and
// Esc interrupts the running turn.
func TestBrowserLiveMeterAndEsc(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "m1", Name: "shell", Args: `{"cmd":"touch y"}`}),
		llmtest.Text("never reached"),
	)
	h := newHost(t, srv, func(o *engine.Options) { o.Approval = "ask" })
	url, ctx := browse(t, h, Options{})
	startSession(t, ctx, url)
	do(t, ctx, "a turn that waits", chromedp.SendKeys("#prompt", "touch it"), enter(), chromedp.WaitVisible(".card.approval button.approve"),
		chromedp.WaitVisible("#totals"))
	if got := textOf(t, ctx, "#totals"); !regexp.MustCompile(`^tokens: [1-9][0-9]* in \([0-9]+% cache hits\), [1-9][0-9]* out · cost (unknown|\$[0-9.]+) \+ this turn.s$`).MatchString(got) {
		t.Errorf("the meter during the turn reads %q", got)
	}
	do(t, ctx, "Esc", chromedp.Focus("#prompt"), chromedp.KeyEvent(kb.Escape), chromedp.WaitVisible(".msg.turn-summary"))
	if s := textOf(t, ctx, ".msg.turn-summary"); !strings.HasPrefix(s, "interrupted") && !strings.HasPrefix(s, "aborted") {
		t.Errorf("after Esc the turn ended %q", s)
	}
	if got := textOf(t, ctx, "#totals"); strings.Contains(got, "this turn") {
		t.Errorf("the meter after the turn reads %q", got)
	}
}

// The app follows the system's dark mode, fits a phone's width in it,
// and every control has a name a screen reader says; Tab starts at the
// link that skips to the conversation.
func TestBrowserDarkModeAndAccessibility(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	seed(t, h, "diffdemo")
	url, ctx := browse(t, h, Options{})
	dark := func(on bool) {
		v := "light"
		if on {
			v = "dark"
		}
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}}); err != nil {
			t.Fatal(err)
		}
	}
	bg := `getComputedStyle(document.body).backgroundColor`
	dark(false)
	do(t, ctx, "a session", chromedp.Navigate(url+"/sessions/diffdemo#token="+testToken), chromedp.WaitVisible("#log"))
	if got := evalString(t, ctx, bg); got != "rgb(251, 251, 250)" {
		t.Errorf("light background %s", got)
	}
	dark(true)
	if got := evalString(t, ctx, bg); got != "rgb(22, 24, 27)" {
		t.Errorf("dark background %s", got)
	}
	do(t, ctx, "open the edit's card", chromedp.Click("#tool-call_e > summary"), chromedp.WaitVisible("#tool-call_e .diff-file"))
	fitsAndShoot(t, ctx, "session-dark", "#log")
	unnamed := evalString(t, ctx, `[...document.querySelectorAll("button, input, textarea, select, a[href], summary")].filter(e => e.checkVisibility() &&
		!(e.getAttribute("aria-label") || e.getAttribute("aria-labelledby") || (e.labels && e.labels.length) || e.textContent.trim())).map(e => e.outerHTML.slice(0, 80)).join("\n")`)
	if unnamed != "" {
		t.Errorf("controls without a name:\n%s", unnamed)
	}
	do(t, ctx, "reload, then Tab", chromedp.Reload(), chromedp.WaitVisible("#log"), chromedp.KeyEvent(kb.Tab))
	if got := evalString(t, ctx, `document.activeElement.className`); got != "skip" {
		t.Errorf("the first Tab lands on %q, not the skip link", got)
	}
	if got := evalString(t, ctx, `[...document.querySelectorAll("nav[aria-label], main")].map(e => e.tagName).join(" ")`); got != "NAV MAIN" {
		t.Errorf("landmarks %q", got)
	}
}

// notificationStub stands in for the browser's Notification API (headless
// Chromium shows none): it records permission requests and notifications;
// the permission and document.hidden live in sessionStorage so that they
// survive the app's navigations.
const notificationStub = `(() => {
	window.__asked = Number(sessionStorage.getItem("asked") || 0);
	window.__shown = [];
	window.Notification = class {
		constructor(title, o) { window.__shown.push(title + " | " + (o && o.body)); }
		close() {}
		static get permission() { return sessionStorage.getItem("perm") || "default"; }
		static requestPermission() { sessionStorage.setItem("asked", String(++window.__asked)); sessionStorage.setItem("perm", "granted"); return Promise.resolve("granted"); }
	};
	Object.defineProperty(document, "hidden", { get: () => sessionStorage.getItem("hidden") === "1" });
})()`

// Notifications are never asked for on load; after the user grants them
// with the button, an approval that waits while the tab is hidden shows
// one, and so does the end of the turn; a visible tab shows none.
func TestBrowserNotifications(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "n1", Name: "shell", Args: `{"cmd":"touch z"}`}),
		llmtest.Text("done"),
		llmtest.Calls(llmtest.Call{ID: "n2", Name: "shell", Args: `{"cmd":"touch w"}`}),
		llmtest.Text("done again"),
	)
	h := newHost(t, srv, func(o *engine.Options) { o.Approval = "ask" })
	url, ctx := browse(t, h, Options{})
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: notificationStub}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the app", chromedp.Navigate(url+"/#token="+testToken), chromedp.WaitVisible("#notify"))
	if n := evalString(t, ctx, `String(window.__asked)`); n != "0" {
		t.Errorf("the page asked for notifications %s times on load", n)
	}
	do(t, ctx, "allow notifications", chromedp.Click("#notify"), chromedp.WaitNotVisible("#notify"))
	if n := evalString(t, ctx, `String(window.__asked)`); n != "1" {
		t.Errorf("the button asked %s times", n)
	}
	startSession(t, ctx, "")
	do(t, ctx, "a visible turn", chromedp.SendKeys("#prompt", "touch"), enter(), chromedp.WaitVisible(".card.approval button.approve"))
	if got := evalString(t, ctx, `window.__shown.join("\n")`); got != "" {
		t.Errorf("a visible tab notified: %s", got)
	}
	do(t, ctx, "hide the tab; approve", chromedp.Evaluate[chromedp.Void](`sessionStorage.setItem("hidden", "1")`),
		chromedp.Click(".card.approval button.approve"), chromedp.WaitVisible(".msg.turn-summary"),
		chromedp.Poll[chromedp.Void](`window.__shown.length > 0`, chromedp.WithPollingInterval(50*time.Millisecond)))
	if got := evalString(t, ctx, `window.__shown.join("\n")`); !strings.HasPrefix(got, "OpenSeek: turn finished | ") {
		t.Errorf("notifications after the turn: %q", got)
	}
	do(t, ctx, "an approval while hidden", chromedp.Evaluate[chromedp.Void](`window.__shown = []`),
		chromedp.Evaluate[chromedp.Void](`(() => { const p = document.querySelector("#prompt"); p.value = "again"; p.form.requestSubmit(); })()`),
		chromedp.Poll[chromedp.Void](`window.__shown.length > 0`, chromedp.WithPollingInterval(50*time.Millisecond)))
	if got := evalString(t, ctx, `window.__shown[0]`); !strings.HasPrefix(got, "OpenSeek: approval needed | shell") {
		t.Errorf("the waiting approval notified %q", got)
	}
}

// A streamed answer is rendered by the server's Markdown (the history's
// renderer) once complete: a hostile one stays text, live as after a
// reload, and the page shows the same HTML both ways.
func TestBrowserMarkdownLive(t *testing.T) {
	const hostile = "## Done\n\n<script>window.pwned = 1</script> <img src=x onerror=\"window.pwned = 2\"> [x](javascript:window.pwned=3)\n\n- **one**\n- `two`"
	srv := llmtest.NewServer(t, llmtest.Reply{Text: hostile, ChunkSize: 7})
	h := newHost(t, srv, nil)
	url, ctx := browse(t, h, Options{})
	startSession(t, ctx, url)
	rendered := `document.querySelector(".msg.assistant .answer").innerHTML`
	do(t, ctx, "a turn", chromedp.SendKeys("#prompt", "go"), enter(), chromedp.WaitVisible(".msg.turn-summary"),
		chromedp.Poll[chromedp.Void](`document.querySelector(".msg.assistant .answer h2") !== null`, chromedp.WithPollingInterval(50*time.Millisecond)))
	live := evalString(t, ctx, rendered)
	want, _ := json.Marshal(markdown.HTML(hostile))
	if norm := evalString(t, ctx, `(() => { const t = document.createElement("template"); t.innerHTML = `+string(want)+`; return t.innerHTML; })()`); live != norm {
		t.Errorf("live answer\n got %s\nwant %s", live, norm)
	}
	if evalBool(t, ctx, `"pwned" in window || document.querySelectorAll(".answer script, .answer img, .answer a").length > 0`) {
		t.Errorf("the hostile answer made markup: %s", live)
	}
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(".msg.assistant .answer h2"))
	if got := evalString(t, ctx, rendered); got != live {
		t.Errorf("reloaded answer\n got %s\nlive %s", got, live)
	}
}

// A long session's page shows its last blocks; "Show earlier" loads the
// ones before, in order, until the whole history is on the page.
func TestBrowserShowEarlier(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	bigSession(t, h, 1000) // 334 prompts, answers and edits: 1,002 blocks
	url, ctx := browse(t, h, Options{})
	do(t, ctx, "open it", chromedp.Navigate(url+"/sessions/big#token="+testToken), chromedp.WaitVisible("#earlier"))
	count := `String(document.querySelectorAll("#log > .msg, #log > .card").length)`
	if n := evalString(t, ctx, count); n != "300" {
		t.Errorf("the page starts with %s blocks", n)
	}
	for i := 0; evalBool(t, ctx, `!!document.querySelector("#earlier")`); i++ {
		if i > 5 {
			t.Fatal("Show earlier never ends")
		}
		do(t, ctx, "show earlier", chromedp.Click("#earlier"), chromedp.Poll[chromedp.Void](`!document.querySelector("#earlier") || !document.querySelector("#earlier").disabled`, chromedp.WithPollingInterval(50*time.Millisecond)))
	}
	if n := evalString(t, ctx, count); n != "1002" {
		t.Errorf("after Show earlier the page has %s blocks", n)
	}
	if first := textOf(t, ctx, "#log > .msg.user .text"); first != "step 0: rename the greeting" {
		t.Errorf("the first block is %q", first)
	}
}
