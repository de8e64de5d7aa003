// Package web serves OpenSeek's web app and session viewer: server-rendered
// pages over a workspace host, mounted by the HTTP server (package
// httpapi) at "/" behind its token check.
//
// The browser holds no credential a server on another port of the same
// host would receive (cookies are not scoped by port): a navigation gets
// the Shell, a page with no data, whose script takes the token from the
// URL's fragment (#token=…, never sent to a server) into the tab's
// sessionStorage, removes it from the address bar, and fetches the page
// itself with `Authorization: Bearer`. The event stream is read with
// fetch for the same reason (an EventSource cannot send that header).
//
//   - Every page has the sidebar: New session (POST /v1/sessions), a search
//     over the sessions' titles, the sessions with the shown one and the
//     running ones marked (the script refreshes the marks from GET
//     /v1/sessions), and, when the server holds several workspaces
//     (Options.Workspaces, each served under its Base), a picker.
//   - "/" lists the workspace's sessions, newest first.
//   - "/sessions/{id}" renders the session's history from its log (user
//     prompts, answers, folded reasoning, tool calls as cards with their
//     results and colored diffs), then follows the live turn on
//     /v1/sessions/{id}/events?since=<head>, where head is the sequence
//     the page was rendered at (a session on disk that is not open is
//     first resumed with POST /v1/sessions {"id"}). Its prompt box, steer, cancel
//     and approve/deny buttons POST protocol commands to
//     /v1/sessions/{id}/commands; a refusal is shown to the user.
//   - "/static/..." is the small hand-written script and style sheet,
//     embedded in the binary (no build step).
//
// With ReadOnly it is the viewer of `openseek inspect`: no controls and no
// live stream; each session page adds the timeline of every logged event,
// tokens and cost per model call, the cache-hit ratio, compaction ranges
// and the sub-agent sessions (<id>-sr-N) linked from their parent. Pages
// only read: a session's log (or the open session's snapshot) is the one
// source, so the viewer works with no model key.
package web

import (
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/markdown"
	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// Options configure the pages.
type Options struct {
	ReadOnly bool // the session viewer: nothing that changes a session
	// Base is the path prefix the pages (and their API) are served under
	// when one server holds several workspaces ("" or "/w/1"): links and
	// the script's requests start with it.
	Base string
	// Workspaces are all the workspaces the server holds, in order, for
	// the sidebar's picker; fewer than two shows no picker.
	Workspaces []Workspace
}

// Workspace is one workspace of the server, as the picker lists it.
type Workspace struct {
	Path string // the workspace directory
	Base string // where its pages are served ("" for the first)
}

//go:embed templates/*.html
var templateFS embed.FS

// shellPage is the page a navigation gets: no data, only the script that
// loads the real page with the token.
//
//go:embed templates/shell.html
var shellPage []byte

//go:embed static
var staticFS embed.FS

type app struct {
	host  *engine.Host
	o     Options
	index *template.Template
	chat  *template.Template
}

// New returns the handler of the pages over h.
func New(h *engine.Host, o Options) http.Handler {
	parse := func(page string) *template.Template {
		return template.Must(template.New("layout.html").ParseFS(templateFS, "templates/layout.html", "templates/"+page))
	}
	a := &app{host: h, o: o, index: parse("index.html"), chat: parse("session.html")}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.sessions)
	mux.HandleFunc("GET /sessions/{id}", a.session)
	mux.HandleFunc("GET /sessions/{id}/cards/{call}", a.card)
	mux.HandleFunc("GET /sessions/{id}/blocks", a.blocks)
	if !o.ReadOnly {
		mux.HandleFunc("POST /markdown", renderMarkdown)
		mux.HandleFunc("GET /sessions/{id}/changes", a.changes)
		mux.HandleFunc("POST /sessions/{id}/rewind", a.rewind)
	}
	mux.Handle("GET /static/", assets())
	return mux
}

// Shell answers the requests a browser makes without the token: the
// embedded script and style sheet, and for every other GET the shell page
// that holds no data (not the workspace, not a session) and loads the
// real page with the token its script keeps in the tab.
func Shell() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", assets())
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		pageHeaders(w.Header())
		w.Write(shellPage)
	})
	return mux
}

func assets() http.Handler {
	static, _ := fs.Sub(staticFS, "static") // the directory is embedded above
	return http.StripPrefix("/static/", http.FileServerFS(static))
}

// pageHeaders are the headers of every HTML page: no caching, no Referer
// (a URL never leaves the app), only the app's own script and style (an
// injected script could read the token the tab keeps), never framed.
func pageHeaders(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
}

// listed is one row of the session list.
type listed struct {
	engine.SessionInfo
	Title, When string
	Parent      string
}

// chrome is what every page shows around its content: the workspace's
// warnings and the sidebar (the workspace picker and its sessions).
type chrome struct {
	ReadOnly   bool
	Warnings   []string // the workspace's (its sessions' streams start with them, before the page's head)
	Base       string
	Workspace  string
	Workspaces []pick
	Sessions   []listed // the sidebar's: the user's sessions, newest first, without sub-agents
	Current    string   // the session the page shows, or ""
}

// pick is one workspace of the picker.
type pick struct {
	Workspace
	Name    string // the directory's last element
	Current bool
}

// chrome builds the frame of a page for session current ("" for none);
// all are the workspace's sessions, newest first.
func (a *app) chrome(all []listed, current string) chrome {
	c := chrome{ReadOnly: a.o.ReadOnly, Warnings: a.host.Warnings(), Base: a.o.Base, Workspace: a.host.Workspace(), Current: current}
	if len(a.o.Workspaces) > 1 {
		for _, ws := range a.o.Workspaces {
			c.Workspaces = append(c.Workspaces, pick{Workspace: ws, Name: filepath.Base(ws.Path), Current: ws.Base == a.o.Base})
		}
	}
	for _, l := range all {
		if l.Parent == "" && !l.Review {
			c.Sessions = append(c.Sessions, l)
		}
	}
	return c
}

// listAll is the workspace's sessions as the pages list them.
func (a *app) listAll() ([]listed, error) {
	rows, err := a.host.SessionInfos()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	out := make([]listed, 0, len(rows))
	for _, row := range rows {
		l := listed{SessionInfo: row, Title: "(no prompt yet)", Parent: parentOf(row.ID)}
		if row.Title != nil {
			l.Title = clip(oneLine(*row.Title), 120)
		}
		if row.UpdatedAtMs != nil {
			l.When = time.UnixMilli(*row.UpdatedAtMs).Local().Format(time.DateTime)
		}
		out = append(out, l)
	}
	return out, nil
}

type indexPage struct {
	chrome
	All []listed
}

func (a *app) sessions(w http.ResponseWriter, r *http.Request) {
	all, err := a.listAll()
	if err != nil {
		a.fail(w, http.StatusInternalServerError, "listing the sessions failed: "+err.Error())
		return
	}
	a.render(w, a.index, indexPage{chrome: a.chrome(all, ""), All: all})
}

type sessionPage struct {
	chrome
	ID        string
	Title     string
	Since     int64 // the stream sequence the page was rendered at
	Open      bool
	Busy      bool
	Parent    string
	Blocks    []block
	Earlier   int // blocks before Blocks, loaded on demand (GET /sessions/{id}/blocks?to=Earlier)
	Events    int
	Usage     string // tokens, cache hits and cost of the session
	Total     protocol.Usage
	Cost      float64
	CostKnown bool
	HitRatio  string
	Steps     []step
	Timeline  []row
	Compacted []compaction
	Children  []listed
}

func (a *app) session(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := session.ValidateID(id); err != nil {
		a.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	all, _ := a.listAll() // a sidebar that cannot be listed is empty; the session still shows
	p := sessionPage{chrome: a.chrome(all, id), ID: id, Title: id, Parent: parentOf(id)}
	var s *session.Session
	if open, ok := a.host.Get(id); ok {
		// The head first, then the snapshot: an event in between is shown
		// twice at worst (the script skips a card it already has), never lost.
		p.Since, p.Open, p.Busy = open.Hub().Head(), true, open.Busy()
		s = open.Snapshot()
	} else {
		var err error
		if s, err = a.host.LoadSession(id); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				a.fail(w, http.StatusNotFound, err.Error()+"; the workspace's sessions are listed on the first page")
				return
			}
			a.fail(w, http.StatusInternalServerError, err.Error())
			return
		}
	}
	p.fill(s)
	if !a.o.ReadOnly {
		// A long session shows its last blocks first: the page paints as
		// fast for 5,000 events as for 50, and the rest loads on demand.
		p.Earlier = max(len(p.Blocks)-pageBlocks, 0)
		p.Blocks = p.Blocks[p.Earlier:]
	}
	if a.o.ReadOnly {
		p.Steps, p.Timeline, p.Compacted = steps(s), timeline(s), compactions(s)
		for _, l := range all {
			if l.Parent == id {
				l.Title = cmp.Or(deref(l.SessionInfo.Title), l.ID)
				p.Children = append(p.Children, l)
			}
		}
	}
	a.render(w, a.chat, p)
}

// pageBlocks is how many of a session's blocks its page shows at first
// and each "Show earlier" adds.
const pageBlocks = 300

// blocks answers the HTML of a session's blocks [to-pageBlocks, to), with
// the button for those before when there are: what "Show earlier" loads.
func (a *app) blocks(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	to, err := strconv.Atoi(r.URL.Query().Get("to"))
	if err != nil || to < 0 {
		http.Error(w, "?to= must be a block index (0 or more)", http.StatusBadRequest)
		return
	}
	var s *session.Session
	if open, ok := a.host.Get(id); ok {
		s = open.Snapshot()
	} else if err = session.ValidateID(id); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	} else if s, err = a.host.LoadSession(id); err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	all := history(s)
	to = min(to, len(all))
	p := sessionPage{Blocks: all[max(to-pageBlocks, 0):to], Earlier: max(to-pageBlocks, 0)}
	pageHeaders(w.Header())
	if err := a.chat.ExecuteTemplate(w, "blocks", p); err != nil {
		w.Write([]byte("<p class=\"error\">rendering failed: " + template.HTMLEscapeString(err.Error()) + "</p>"))
	}
}

// renderMarkdown answers {"html"} for {"markdown"}: a streamed answer
// rendered as the page renders the history (package markdown), so the
// script keeps no Markdown renderer of its own. It changes nothing.
func renderMarkdown(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Markdown string `json:"markdown"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20)).Decode(&req); err != nil {
		jsonError(w, http.StatusBadRequest, `the body must be {"markdown": "text"} (at most 4 MiB): `+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]string{"html": markdown.HTML(req.Markdown)})
}

// card answers the HTML of one tool call's card, as the session page
// renders it: the live page replaces its card with it when the call's
// result arrives (one renderer for the exit badge, the notes, the diff).
func (a *app) card(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var s *session.Session
	if open, ok := a.host.Get(id); ok {
		s = open.Snapshot()
	} else if err := session.ValidateID(id); err == nil {
		s, _ = a.host.LoadSession(id)
	}
	var c *card
	if s != nil {
		c = findCard(s, r.PathValue("call"))
	}
	if c == nil || !c.Done {
		http.Error(w, "no finished tool call "+r.PathValue("call")+" in session "+id, http.StatusNotFound)
		return
	}
	pageHeaders(w.Header())
	if err := a.chat.ExecuteTemplate(w, "card", c); err != nil {
		w.Write([]byte("<p class=\"error\">rendering failed: " + template.HTMLEscapeString(err.Error()) + "</p>"))
	}
}

// fill sets what the page shows of s: its title, history and totals.
func (p *sessionPage) fill(s *session.Session) {
	for _, e := range s.Events {
		if u, ok := e.Item.(*session.User); ok {
			p.Title = clip(oneLine(u.Content.Text()), 80)
			break
		}
	}
	p.Blocks, p.Events = history(s), len(s.Events)
	p.Total = s.Usage()
	p.Cost, p.CostKnown = s.Cost()
	p.Usage, p.HitRatio = render.UsageLine(p.Total, nil)+" · "+render.CostText(p.Cost, p.CostKnown), hitRatio(p.Total)
}

func (a *app) render(w http.ResponseWriter, t *template.Template, data any) {
	pageHeaders(w.Header())
	if err := t.Execute(w, data); err != nil {
		// Headers are gone; the page ends where the template failed.
		w.Write([]byte("<p class=\"error\">rendering failed: " + template.HTMLEscapeString(err.Error()) + "</p>"))
	}
}

func (a *app) fail(w http.ResponseWriter, status int, msg string) {
	pageHeaders(w.Header())
	w.WriteHeader(status)
	a.index.ExecuteTemplate(w, "error", struct {
		ReadOnly    bool
		Base, Error string
	}{a.o.ReadOnly, a.o.Base, msg})
}
