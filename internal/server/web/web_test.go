package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/markdown"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// newHost is a workspace host talking to the scripted model server.
func newHost(t *testing.T, srv *llmtest.Server, mod func(*engine.Options)) *engine.Host {
	t.Helper()
	o := engine.Options{
		Dir: t.TempDir(), Home: t.TempDir(), Model: "test-model", APIURL: srv.URL(), NoSandbox: true,
		Retry:  llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond},
		Getenv: func(string) string { return "" },
	}
	if mod != nil {
		mod(&o)
	}
	h, err := engine.NewHost(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// pricedModel serves the scripted model as "local/m" at $1 per million
// tokens of every kind, so the responses record a cost.
func pricedModel(t *testing.T, srv *llmtest.Server) func(*engine.Options) {
	return func(o *engine.Options) {
		conf := "[providers.local]\nbase_url = \"" + strings.TrimSuffix(srv.URL(), "/chat/completions") + "\"\nno_key = true\n\n" +
			"[models.\"local/m\"]\nwindow = 128000\nprice = { input_hit = 1, input_miss = 1, output = 1 }\n"
		if err := os.MkdirAll(filepath.Join(o.Home, ".openseek"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(o.Home, ".openseek", "config.toml"), []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		o.Model, o.APIURL = "local/m", ""
	}
}

// turn opens a session (id "" = a new one) and runs one prompt to its end.
func turn(t *testing.T, h *engine.Host, id, prompt string) *engine.Session {
	t.Helper()
	s, err := h.Open(context.Background(), engine.OpenOptions{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := s.Prompt(context.Background(), protocol.Text(prompt), nil); err != nil || !out.OK() {
		t.Fatalf("turn: %+v %v", out, err)
	}
	return s
}

// page GETs path from the handler and parses the HTML.
func page(t *testing.T, hd http.Handler, path string, want int) *html.Node {
	t.Helper()
	rec := httptest.NewRecorder()
	hd.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != want {
		t.Fatalf("GET %s: %d, want %d\n%s", path, rec.Code, want, rec.Body)
	}
	doc, err := html.Parse(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// all returns the elements under n matching a tiny selector: "#id",
// ".class" (every class given as .a.b must be present), "tag" or
// "tag.class".
func all(n *html.Node, sel string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && matches(n, sel) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func matches(n *html.Node, sel string) bool {
	if id, ok := strings.CutPrefix(sel, "#"); ok {
		return attr(n, "id") == id
	}
	parts := strings.Split(sel, ".")
	if parts[0] != "" && parts[0] != n.Data {
		return false
	}
	classes := " " + attr(n, "class") + " "
	for _, c := range parts[1:] {
		if !strings.Contains(classes, " "+c+" ") {
			return false
		}
	}
	return true
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// one returns the single element matching sel, failing otherwise.
func one(t *testing.T, n *html.Node, sel string) *html.Node {
	t.Helper()
	got := all(n, sel)
	if len(got) != 1 {
		t.Fatalf("%d elements match %q, want 1", len(got), sel)
	}
	return got[0]
}

func rendered(n *html.Node) string {
	var b strings.Builder
	html.Render(&b, n)
	return b.String()
}

// A session run by the real engine renders as a chat: the prompt
// (escaped), folded reasoning, the tool call as a card with its result,
// the answer's code block; the page carries the stream head and the
// controls, and the session list links it.
func TestChatPage(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "list first", Calls: []llmtest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"echo tool-said-hi"}`}}},
		llmtest.Text("It printed `tool-said-hi`:\n```sh\necho tool-said-hi\n```\n<b>not markup</b> and **bold**"),
	)
	h := newHost(t, srv, nil)
	s := turn(t, h, "", "<script>alert(1)</script> run echo")
	hd := New(h, Options{})

	doc := page(t, hd, "/sessions/"+s.ID(), 200)
	chat := one(t, doc, "#chat")
	if got, want := attr(chat, "data-since"), strconv.FormatInt(s.Hub().Head(), 10); got != want || want == "0" {
		t.Errorf("data-since %q, want the stream head %s", got, want)
	}
	if got := text(one(t, doc, ".msg.user")); !strings.Contains(got, "<script>alert(1)</script> run echo") {
		t.Errorf("user message %q", got)
	}
	if len(all(doc, "script")) != 1 || attr(all(doc, "script")[0], "src") != "/static/app.js" {
		t.Errorf("the prompt's <script> became markup: %s", rendered(doc))
	}
	if got := text(one(t, doc, "details.reasoning")); !strings.Contains(got, "list first") {
		t.Errorf("reasoning %q", got)
	}
	cardNode := one(t, doc, "#tool-c1")
	for _, want := range []string{"shell", "cmd: echo tool-said-hi", "tool-said-hi"} {
		if !strings.Contains(text(cardNode), want) {
			t.Errorf("tool card lacks %q: %s", want, rendered(cardNode))
		}
	}
	if !strings.Contains(attr(cardNode, "class"), "done") {
		t.Errorf("tool card not done: %s", attr(cardNode, "class"))
	}
	answer := rendered(one(t, doc, ".answer"))
	for _, want := range []string{`<code>tool-said-hi</code>`, `<pre class="code" data-lang="sh"><code>echo tool-said-hi</code></pre>`,
		`&lt;b&gt;not markup&lt;/b&gt;`, `<strong>bold</strong>`} {
		if !strings.Contains(answer, want) {
			t.Errorf("answer lacks %s:\n%s", want, answer)
		}
	}
	one(t, doc, "#prompt")
	one(t, doc, "#cancel")
	if len(all(doc, ".viewer")) != 0 {
		t.Error("the chat page shows the viewer's tables")
	}

	list := page(t, hd, "/", 200)
	row := one(t, list, ".session-row")
	if a := one(t, row, "a"); attr(a, "href") != "/sessions/"+s.ID() || !strings.Contains(text(a), "run echo") {
		t.Errorf("session row %s", rendered(row))
	}
	if !strings.Contains(text(one(t, row, ".state")), "open") {
		t.Errorf("an open session is not marked open: %s", rendered(row))
	}
	one(t, list, "#new-session")
}

// A tool result's diff (kept in its data) is shown colored line by line.
func TestChatPageDiff(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	seed(t, h, "diffdemo")
	doc := page(t, New(h, Options{}), "/sessions/diffdemo", 200)
	c := one(t, doc, "#tool-call_e")
	if got := text(one(t, c, "span.del")); got != "-\tprintln(\"hi\")" {
		t.Errorf("removed line %q", got)
	}
	if got := text(one(t, c, "span.add")); got != "+\tprintln(\"hello\")" {
		t.Errorf("added line %q", got)
	}
	if got := text(one(t, c, ".brief")); got != "edit hello.go" {
		t.Errorf("brief %q", got)
	}
}

// seed copies testdata/<id>.jsonl into the host's session store.
func seed(t *testing.T, h *engine.Host, id string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(h.SessionRoot(), "sessions", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "openseek_session-"+id+".jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The read-only viewer: no controls; every event in the timeline; tokens
// and cost per model call; the cache-hit ratio; compaction ranges; the
// sub-agent sessions linked from their parent and back.
func TestViewer(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a1", Name: "agent", Args: `{"description":"count files","prompt":"Report: FILES-OK"}`}),
		llmtest.Text("child report"),
		llmtest.Text("the child reported"),
		llmtest.Reply{Text: "the summary of it all", Summary: true},
	)
	srv.MultiConversation()
	h := newHost(t, srv, pricedModel(t, srv))
	s := turn(t, h, "p", "delegate the count")
	if err := s.Apply(protocol.CompactCmd{}); err != nil {
		t.Fatal(err)
	}
	s.Drain()
	snap := s.Snapshot()
	s.Close()

	hd := New(h, Options{ReadOnly: true})
	doc := page(t, hd, "/sessions/p", 200)
	for _, sel := range []string{"textarea", "#cancel", "#new-session", "button.approve"} {
		if len(all(doc, sel)) != 0 {
			t.Errorf("the viewer has a control %s", sel)
		}
	}
	if attr(one(t, doc, "#chat"), "data-readonly") != "true" {
		t.Error("the page does not tell the script it is read-only")
	}
	rows := all(one(t, doc, "#timeline"), "tr")[1:] // the header row first
	if len(rows) != len(snap.Events) {
		t.Fatalf("timeline has %d rows, the log %d events", len(rows), len(snap.Events))
	}
	for i, r := range rows {
		if got := attr(r, "id"); got != "ev-"+strconv.Itoa(snap.Events[i].Sequence) {
			t.Errorf("row %d id %q", i, got)
		}
		want := snap.Events[i].Item.ItemKind()
		if n, ok := snap.Events[i].Item.(*session.Notice); ok && strings.HasPrefix(n.Content, session.SnapshotPrefix) {
			want = "snapshot" // bookkeeping shows as a small marker row
		}
		if kind := text(all(r, "td")[2]); !strings.HasPrefix(kind, want) {
			t.Errorf("row %d kind %q, want %s", i, kind, want)
		}
	}
	steps := all(one(t, doc, "#steps"), "tr")[1:]
	if len(steps) != 2 { // the parent's two model calls (the summary records no usage)
		t.Errorf("%d step rows: %s", len(steps), rendered(one(t, doc, "#steps")))
	}
	for _, r := range steps {
		if c := text(all(r, "td")[8]); !strings.HasPrefix(c, "$0.") {
			t.Errorf("step cost %q", c)
		}
	}
	u := snap.Usage()
	wantRatio := strconv.Itoa(int(100*float64(u.PromptCacheHitTokens)/float64(u.PromptTokens)+0.5)) + "%"
	if got := text(one(t, doc, "#cache-ratio")); got != wantRatio || u.PromptCacheHitTokens == 0 {
		t.Errorf("cache-hit ratio %q, want %s (usage %+v)", got, wantRatio, u)
	}
	comp := text(one(t, doc, "#compactions"))
	if !strings.Contains(comp, "summarises events 1–") {
		t.Errorf("compactions: %q", comp)
	}
	child := one(t, one(t, doc, "#children"), "a")
	if attr(child, "href") != "/sessions/p-sr-1" {
		t.Errorf("sub-agent link %s", rendered(child))
	}
	cdoc := page(t, hd, "/sessions/p-sr-1", 200)
	if a := one(t, one(t, cdoc, ".heading"), ".sub"); !strings.Contains(rendered(a), `href="/sessions/p"`) {
		t.Errorf("the child does not link its parent: %s", rendered(a))
	}
	list := page(t, hd, "/", 200)
	if len(all(list, "#new-session")) != 0 {
		t.Error("the read-only list offers a new session")
	}
	if len(all(list, ".session-row")) != 2 {
		t.Errorf("sessions listed: %s", rendered(one(t, list, ".session-list")))
	}
}

// Bad paths: an unknown session is a 404 page saying so; an invalid id is
// refused; the embedded assets are served.
func TestPagesBadInputAndAssets(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	hd := New(h, Options{})
	doc := page(t, hd, "/sessions/nosuch", 404)
	if got := text(one(t, doc, ".banner.error")); !strings.Contains(got, "nosuch") || !strings.Contains(got, "does not exist") {
		t.Errorf("404 page says %q", got)
	}
	page(t, hd, "/sessions/..%2f..%2fetc", 400)
	for path, want := range map[string]string{"/static/app.js": "Authorization", "/static/app.css": ".card"} {
		rec := httptest.NewRecorder()
		hd.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d %.80s", path, rec.Code, body)
		}
	}
	rec := httptest.NewRecorder()
	hd.ServeHTTP(rec, httptest.NewRequest("POST", "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", rec.Code)
	}
}

// An answer is rendered by the project's one Markdown implementation
// (package markdown), and a hostile one stays text.
func TestChatPageMarkdown(t *testing.T) {
	const hostile = "# Plan\n\n<script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n| a | b |\n|---|---|\n| 1 | 2 |"
	srv := llmtest.NewServer(t, llmtest.Text(hostile))
	h := newHost(t, srv, nil)
	s := turn(t, h, "", "go")
	doc := page(t, New(h, Options{}), "/sessions/"+s.ID(), 200)
	answer := one(t, doc, ".answer")
	if got, want := rendered(answer), `<div class="answer">`+markdown.HTML(hostile)+`</div>`; got != want {
		t.Errorf("answer\n got %s\nwant %s", got, want)
	}
	one(t, answer, "h1")
	one(t, answer, "table")
	if n := len(all(answer, "script")) + len(all(answer, "img")) + len(all(answer, "a")); n != 0 {
		t.Errorf("the hostile answer made markup: %s", rendered(answer))
	}
}

// The workspace's warnings (here: allow rules ignored until the
// repository is trusted) are shown on every page.
func TestPagesShowWorkspaceWarnings(t *testing.T) {
	srv := llmtest.NewServer(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(dir, ".openseek", "config.toml"), []byte("[[rules]]\npattern = [\"make\"]\ndecision = \"allow\"\n"), 0o644)
	h := newHost(t, srv, func(o *engine.Options) { o.Dir = dir })
	if len(h.Warnings()) != 1 || !strings.Contains(h.Warnings()[0], "allow rule") {
		t.Fatalf("host warnings %q", h.Warnings())
	}
	seed(t, h, "diffdemo")
	for _, path := range []string{"/", "/sessions/diffdemo"} {
		doc := page(t, New(h, Options{}), path, 200)
		if got := text(one(t, doc, "#banners")); !strings.Contains(got, h.Warnings()[0]) {
			t.Errorf("%s banners %q, want %q", path, got, h.Warnings()[0])
		}
	}
}

// BenchmarkViewerPage renders the viewer of a 3,000-event session (1,000
// edits with their diffs, answers, prompts).
func BenchmarkViewerPage(b *testing.B) { benchPage(b, 3000, Options{ReadOnly: true}) }

// Every page, the shell and an error page alike, sends no Referer, runs
// only the app's own script and cannot be framed; the shell holds no
// data of the workspace.
func TestPageHeaders(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	seed(t, h, "diffdemo")
	pages, shell := New(h, Options{}), Shell()
	for _, c := range []struct {
		hd   http.Handler
		path string
		code int
	}{{pages, "/", 200}, {pages, "/sessions/diffdemo", 200}, {pages, "/sessions/nosuch", 404}, {shell, "/sessions/diffdemo", 200}, {shell, "/", 200}} {
		rec := httptest.NewRecorder()
		c.hd.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
		hdr := rec.Header()
		if rec.Code != c.code || hdr.Get("Referrer-Policy") != "no-referrer" || hdr.Get("X-Frame-Options") != "DENY" ||
			!strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'self'") || !strings.Contains(hdr.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("GET %s = %d %v", c.path, rec.Code, hdr)
		}
		if c.hd == shell && (strings.Contains(rec.Body.String(), "diffdemo") || strings.Contains(rec.Body.String(), h.Workspace()) || !strings.Contains(rec.Body.String(), "/static/app.js")) {
			t.Errorf("the shell of %s: %s", c.path, rec.Body)
		}
	}
}

// What a person reads has no internals: the shell's <system> footer
// becomes an exit badge and words, a snapshot marker is no conversation
// line (the viewer's timeline keeps a small "snapshot" row), and an idle
// session's Cancel is hidden.
func TestPagesHideInternals(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	seed(t, h, "shelldemo")
	doc := page(t, New(h, Options{}), "/sessions/shelldemo", 200)
	if got := text(one(t, doc, "#log")); strings.Contains(got, "<system>") || strings.Contains(got, "[snapshot]") || strings.Contains(got, "commit=") {
		t.Errorf("the conversation shows internals:\n%s", got)
	}
	ok, failed := one(t, doc, "#tool-call_s"), one(t, doc, "#tool-call_f")
	if got := text(one(t, ok, ".exit")); got != "exit 0" || !strings.Contains(attr(one(t, ok, ".exit"), "class"), "ok") {
		t.Errorf("exit badge %q %q", got, attr(one(t, ok, ".exit"), "class"))
	}
	if got := text(one(t, ok, ".note")); got != "output cut: 12000 of 12900 characters shown" {
		t.Errorf("note %q", got)
	}
	if got := text(one(t, ok, "pre.result")); !strings.HasSuffix(got, "done") {
		t.Errorf("result %q", got)
	}
	if n := len(all(ok, ".brief")); n != 0 {
		t.Errorf("the card repeats the command its arguments show: %s", rendered(ok))
	}
	if got := text(one(t, failed, ".exit")); got != "exit 2" || !strings.Contains(attr(one(t, failed, ".exit"), "class"), "bad") {
		t.Errorf("failed exit badge %q", got)
	}
	if c := one(t, doc, "#cancel"); attr(c, "hidden") == "" && !hasAttr(c, "hidden") {
		t.Errorf("an idle session shows Cancel: %s", rendered(c))
	}
	if got := text(one(t, doc, "#totals")); got != "tokens: 2100 in (48% cache hits), 25 out · cost unknown" {
		t.Errorf("totals %q", got)
	}

	view := page(t, New(h, Options{ReadOnly: true}), "/sessions/shelldemo", 200)
	row := one(t, view, "#ev-1")
	if attr(row, "class") != "k-snapshot" || strings.Contains(text(row), "commit=") {
		t.Errorf("snapshot row %s", rendered(row))
	}
	// One time format on the page: the chat's and the timeline's.
	clockRE := regexp.MustCompile(`^\d\d:\d\d:\d\d$`)
	if chat, tl := text(one(t, one(t, view, ".msg.user"), ".time")), text(one(t, one(t, view, "#ev-2"), "time")); !clockRE.MatchString(chat) || chat != tl {
		t.Errorf("times: chat %q, timeline %q", chat, tl)
	}
	if got := text(one(t, view, "#ev-4")); !strings.Contains(got, "shell: make") {
		t.Errorf("timeline row %q", got)
	}
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// An edit's diff is shown per file, named with its counts, and its code
// syntax-colored by the file's language; the card's head counts too.
func TestChatPageDiffPerFileColored(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	seed(t, h, "diffdemo")
	doc := page(t, New(h, Options{}), "/sessions/diffdemo", 200)
	c := one(t, doc, "#tool-call_e")
	if got := text(one(t, one(t, c, ".diff-file"), ".diff-name")); strings.Join(strings.Fields(got), " ") != "hello.go +1 −1" {
		t.Errorf("file header %q", got)
	}
	if got := text(one(t, one(t, c, "span.add"), ".tk-s")); got != `"hello"` {
		t.Errorf("the added line's string is not colored: %s", rendered(one(t, c, "span.add")))
	}
	if got := text(one(t, one(t, c, "summary"), ".stat")); strings.Join(strings.Fields(got), " ") != "+1 −1" {
		t.Errorf("head counts %q", got)
	}
	if n := len(all(c, "span.file")); n != 0 {
		t.Errorf("the ---/+++ headers show as lines: %s", rendered(c))
	}
}
