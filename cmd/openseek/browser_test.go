package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/server/web/browsertest"
)

var shots = flag.String("shots", "", "keep the browser tests' screenshots in this directory (default: a temp dir)")

// attackPage is what a program listening on another port of 127.0.0.1
// serves: it tries to drive the OpenSeek server through the user's
// browser and to get its token sent to itself.
//
//go:embed testdata/attacker.html
var attackPage string

// attacker is that program: it serves attackPage and records every
// request it gets, headers and body.
type attacker struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newAttacker(t *testing.T) *attacker {
	a := &attacker{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req strings.Builder
		fmt.Fprintf(&req, "%s %s\n", r.Method, r.URL)
		for k, vs := range r.Header {
			fmt.Fprintf(&req, "%s: %s\n", k, strings.Join(vs, ", "))
		}
		req.Write(body)
		a.mu.Lock()
		a.seen = append(a.seen, req.String())
		a.mu.Unlock()
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, attackPage)
		}
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *attacker) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.seen)
}

// attack opens the attacker's page in a new tab of the same browser,
// aimed at the server at base (and its session id), and waits until it
// has tried everything; it returns what the page saw of each attempt.
func (a *attacker) attack(t *testing.T, b *browsertest.Browser, base, id string) map[string]string {
	t.Helper()
	ctx := b.Tab(t)
	browsertest.Do(t, ctx, "the attacker's page",
		chromedp.Navigate(a.URL+"/?victim="+url.QueryEscape(base)+"&session="+url.QueryEscape(id)),
		chromedp.Poll[chromedp.Void](`window.attackDone === true`))
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`window.results`))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkNothingLeaked fails t if any request the attacker's server got
// carried the token, or any cookie.
func (a *attacker) checkNothingLeaked(t *testing.T, token string) {
	t.Helper()
	reqs := a.requests()
	if len(reqs) < 2 {
		t.Fatalf("the attacker's server saw %d requests; its page did not run", len(reqs))
	}
	for _, r := range reqs {
		if strings.Contains(r, token) || strings.Contains(strings.ToLower(r), "\ncookie:") {
			t.Errorf("the attacker's server received the token or a cookie:\n%s", r)
		}
	}
}

// sessionIDs lists the server's sessions through the API.
func (s *httpServer) sessionIDs(t *testing.T) []string {
	t.Helper()
	code, body, _ := s.do(t, "GET", "/v1/sessions", "", nil)
	if code != 200 {
		t.Fatalf("GET /v1/sessions = %d %s", code, body)
	}
	var rows []struct{ ID string }
	if err := json.Unmarshal([]byte(body), &rows); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// The browser cannot be turned against the user. The real `openseek serve
// --http` (default flags: sandbox on, approvals asked) is used from
// Chromium as a person does — open the printed URL, start a session,
// prompt, approve, reload, open a link in a new tab — while a page served
// by another program on another 127.0.0.1 port, open in the same browser,
// tries to create a session and prompt one (no-cors text/plain fetches,
// auto-submitting text/plain forms, a sandboxed frame with Origin null,
// credentialed reads) and to get the token sent to itself. Nothing it
// tries creates or prompts a session, reads an answer, or brings it the
// token. The same for `openseek inspect`. Screenshots of the app and the
// viewer at desktop and phone sizes are kept (-shots DIR).
func TestBrowserCannotBeTurnedAgainstTheUser(t *testing.T) {
	var b browsertest.Browser
	defer b.Close()
	ctx := b.Tab(t)
	ws, home := t.TempDir(), t.TempDir()
	model := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "t1", Name: "shell", Args: `{"cmd":"touch approved.txt && echo made-it"}`}),
		llmtest.Text("Created **approved.txt**."),
	)
	s := startHTTP(t, ws, home, append(modelArgs(model), "--approval", "ask", "serve", "--http", "127.0.0.1:0")...)

	// The person opens the printed URL: the token leaves the address bar
	// for the tab's sessionStorage, and no cookie is set.
	browsertest.Do(t, ctx, "open the printed URL", chromedp.Navigate(s.url.String()), chromedp.WaitVisible("#new-session"))
	loc, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " " + history.length`))
	if err != nil || strings.Contains(loc, s.token) || strings.Contains(loc, "token") {
		t.Errorf("the address bar still shows the token: %s %v", loc, err)
	}
	if kept, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`sessionStorage.getItem("openseek.token")`)); kept != s.token {
		t.Errorf("sessionStorage holds %q", kept)
	}
	checkNoCookies(t, ctx)

	// Create a session, prompt it, approve its command, see the turn end.
	browsertest.Do(t, ctx, "start a session", chromedp.Click("#new-session"), chromedp.WaitVisible("#prompt"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
	browsertest.Do(t, ctx, "prompt", chromedp.SendKeys("#prompt", "make the file"), browsertest.Enter(),
		chromedp.WaitVisible(".card.approval button.approve"))
	if got := browsertest.Text(t, ctx, ".card.approval"); !strings.Contains(got, "touch approved.txt") {
		t.Errorf("approval card %q", got)
	}
	browsertest.Do(t, ctx, "approve", chromedp.Click(".card.approval button.approve"),
		chromedp.WaitVisible(".card.approval.resolved"), chromedp.WaitVisible(".msg.turn-summary"), chromedp.WaitVisible("#tool-t1.done"))
	if got := browsertest.Text(t, ctx, "#tool-t1"); !strings.Contains(got, "made-it") {
		t.Errorf("tool card %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	ids := s.sessionIDs(t)
	if len(ids) != 1 {
		t.Fatalf("sessions after the legitimate use: %v", ids)
	}
	id := ids[0]
	requests := len(model.Requests())

	// A reload keeps working (sessionStorage survives it).
	browsertest.Do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible("#tool-t1.done"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
	for _, size := range [][2]int64{{1280, 900}, {390, 844}} {
		browsertest.Do(t, ctx, "resize", chromedp.EmulateViewport(size[0], size[1]))
		browsertest.Screenshot(t, ctx, *shots, fmt.Sprintf("browser-app-%dx%d.png", size[0], size[1]), int(size[0]))
	}
	// A link of the app opened in a new tab (which starts with empty
	// sessionStorage) carries the token in its fragment.
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const a = document.querySelector("a.brand");
		a.dispatchEvent(new PointerEvent("pointerdown", {bubbles: true}));
		return a.href;
	})()`))
	if err != nil || !strings.HasSuffix(href, "/#token="+s.token) {
		t.Fatalf("the link to open in a new tab is %q %v", href, err)
	}
	fresh := b.Tab(t)
	browsertest.Do(t, fresh, "open the link in a new tab", chromedp.Navigate(href), chromedp.WaitVisible(`.session-row[data-id="`+id+`"]`))
	if loc, _ := chromedp.Run(fresh, chromedp.Evaluate[string](`location.href`)); strings.Contains(loc, "token") {
		t.Errorf("the new tab's address bar shows the token: %s", loc)
	}

	// The attack, with the app open in the other tab.
	results := newAttacker(t).attackAndCheck(t, &b, s, id)
	t.Logf("what the attacker's page saw: %v", results)
	if got := s.sessionIDs(t); !slices.Equal(got, ids) {
		t.Errorf("sessions after the attack: %v, before: %v", got, ids)
	}
	if n := len(model.Requests()); n != requests {
		t.Errorf("the model got %d requests after the attack (had %d)", n, requests)
	}
	if _, body, _ := s.do(t, "GET", "/v1/sessions/"+id, "", nil); strings.Contains(body, "pwned") {
		t.Errorf("the attacker's prompt reached the session: %s", body)
	}
	if _, err := os.Stat(filepath.Join(ws, "approved.txt")); err != nil {
		t.Errorf("the attack rewound the session's files: %v", err)
	}
	s.stop(t, syscall.SIGTERM)

	// The viewer of `openseek inspect`, opened and attacked the same way.
	v := startHTTP(t, ws, t.TempDir(), "inspect", id)
	view := b.Tab(t)
	browsertest.Do(t, view, "open the viewer", chromedp.Navigate(v.url.String()), chromedp.WaitVisible("#timeline"))
	if got := browsertest.Text(t, view, "#timeline"); !strings.Contains(got, "make the file") {
		t.Errorf("viewer timeline %q", got)
	}
	checkNoCookies(t, view)
	for _, size := range [][2]int64{{1280, 900}, {390, 844}} {
		browsertest.Do(t, view, "resize", chromedp.EmulateViewport(size[0], size[1]))
		browsertest.Screenshot(t, view, *shots, fmt.Sprintf("browser-viewer-%dx%d.png", size[0], size[1]), int(size[0]))
	}
	newAttacker(t).attackAndCheck(t, &b, v, id)
	v.stop(t, syscall.SIGINT)
}

// attackAndCheck runs the attack on server s and checks what needs no
// knowledge of the server: the page could read nothing, and the
// attacker's server got no token and no cookie.
func (a *attacker) attackAndCheck(t *testing.T, b *browsertest.Browser, s *httpServer, id string) map[string]string {
	t.Helper()
	got := a.attack(t, b, s.base, id)
	for _, name := range []string{"read sessions", "read page", "read events", "read changes", "cors json create"} {
		if !strings.HasPrefix(got[name], "error") {
			t.Errorf("the attacker's page could %s: %.200s", name, got[name])
		}
	}
	for _, name := range []string{"no-cors create", "no-cors prompt", "form create", "form prompt", "sandboxed frame", "no-cors rewind", "form rewind"} {
		if got[name] == "" {
			t.Errorf("the attempt %q did not run: %v", name, got)
		}
	}
	a.checkNothingLeaked(t, s.token)
	return got
}

// checkNoCookies fails t if the browser holds any cookie at all.
func checkNoCookies(t *testing.T, ctx context.Context) {
	t.Helper()
	res, err := chromedp.Call(ctx, storage.GetCookies, storage.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cookies {
		t.Errorf("the browser holds a cookie %s for %s", c.Name, c.Domain)
	}
}
