// Package httpapi serves a workspace host (engine.Host) over HTTP: a JSON
// API to list, open and drive sessions, and each session's event stream as
// server-sent events, with the web app (internal/server/web) mounted at "/".
// It is what `openseek serve --http` and `openseek inspect` run.
//
// Routes (all need the token, see below):
//
//	GET  /v1/health                  {"ok":true,"workspace":"/abs/dir"}
//	GET  /v1/models                  [{"spec","window","ready"}]
//	GET  /v1/sessions                [{"id","title","updated_at_ms","open","busy"}]
//	POST /v1/sessions                {"id"?,"model"?} → 201 {"id"}
//	GET  /v1/sessions/{id}           the snapshot `openseek sessions show` prints,
//	                                 header X-OpenSeek-Last-Event-ID
//	POST /v1/sessions/{id}/commands  one protocol command line → 202 {"accepted":true}
//	GET  /v1/sessions/{id}/events    text/event-stream of the session's protocol events
//	/v1/tasks…                       the fleet's task API, when Options.Mount adds it
//	/w/N/…                           another workspace's routes, when Server.Add serves one
//	everything else                  the web app
//
// Security: every request carries the token as `Authorization: Bearer`;
// no cookie is set and a token in a query string is not read (cookies
// reach every port of a host; query strings reach logs). The printed URL
// carries it in the fragment (/#token=TOKEN), which browsers never send:
// a browser's GET outside /v1/ without the header gets the page shell of
// package web, whose script keeps the token in the tab and fetches the
// page with it. A request that changes something (any method but GET,
// HEAD, OPTIONS) must declare Content-Type: application/json (415) and,
// from a browser, come from this server's own origin (Sec-Fetch-Site
// same-origin, Origin this server; else 403), so a page of another
// program, even on another port of 127.0.0.1, cannot drive a session
// with a form or a no-cors fetch. No GET changes anything: the events of
// a session on disk that is not open answer 409 until a POST resumes it.
// A Host header that is not a
// loopback address or localhost with the server's port is refused (403,
// against DNS rebinding); no CORS header is ever sent, so other origins
// cannot read answers; every answer says Referrer-Policy: no-referrer.
// Bodies are limited to 16 MiB (413). Errors are JSON {"error":"text"}.
// The listener is loopback-only unless remote access is asked for
// explicitly.
//
// Streams: every SSE message is `id: <seq>`, `event: <name>` and `data:
// <protocol line>`; Last-Event-ID (or ?since=) resumes after that sequence
// with nothing lost or repeated while the events are in the session's
// in-memory window, and a reader too far behind gets `event: stream_reset`
// (no id) and continues from its resume sequence. A stream never slows the
// turn: the session's hub never waits for a reader, and a client that goes
// away only closes its own cursor — the turn goes on.
//
// Read-only mode (`openseek inspect`) serves only the GET routes (a POST is
// 405), never opens a session, and reads sessions from disk; the events of
// a session (never live there) answer 204 No Content, which tells a
// client not to reconnect.
package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/server/web"
)

// MaxBody is the largest request body accepted (images travel inline in
// prompts); a larger one is refused with 413.
const MaxBody = 16 << 20

// DefaultAddr is where `openseek serve --http` listens without an address.
const DefaultAddr = "127.0.0.1:7878"

// Options configure a Server.
type Options struct {
	Token    string // required: the capability every request must carry
	ReadOnly bool   // inspect: GET routes only, no session is ever opened
	// AllowRemote accepts Host headers other than loopback names (the
	// listener was deliberately bound to another interface); the token
	// is then the only guard.
	AllowRemote bool
	// Web serves everything outside /v1/ (default: web.New over the host).
	Web http.Handler
	// Shell answers a GET outside /v1/ that carries no token (default:
	// web.Shell); it must serve no workspace data.
	Shell http.Handler
	// KeepAlive is the interval of the `: ping` comment on idle streams
	// (default 15 s).
	KeepAlive time.Duration
	// WriteTimeout bounds one write to a stream: a client that stops
	// reading for that long is dropped (default 1 minute).
	WriteTimeout time.Duration
	// Holder names the writer of sessions opened here (default
	// "openseek serve --http").
	Holder string
	// Mount adds another package's /v1/ routes (the fleet's /v1/tasks)
	// behind the same token and Host checks; their requests end when the
	// server shuts down. Ignored in read-only mode.
	Mount func(mux *http.ServeMux)
}

// Server is the HTTP API over one workspace host.
type Server struct {
	host *engine.Host
	o    Options
	h    http.Handler

	// streams ends every event stream when the server shuts down (an
	// http.Server's Shutdown waits for handlers, and a stream never ends
	// by itself).
	streams context.Context
	stop    context.CancelFunc
	running sync.WaitGroup

	more []prefixed // further workspaces served under a path prefix
}

// prefixed is another workspace's server and the path it is served at.
type prefixed struct {
	prefix string
	s      *Server
}

// Add serves other (a server over another workspace host, with the same
// token) under prefix, e.g. "/w/1": a request for prefix+"/…" is
// other's "/…", checked by other's own guard. Its streams end with s's.
// Call Add before serving.
func (s *Server) Add(prefix string, other *Server) {
	s.more = append(s.more, prefixed{prefix, other})
}

// New makes the server over host.
func New(host *engine.Host, o Options) *Server {
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = time.Minute
	}
	if o.Holder == "" {
		o.Holder = "openseek serve --http"
	}
	if o.Web == nil {
		o.Web = web.New(host, web.Options{ReadOnly: o.ReadOnly})
	}
	if o.Shell == nil {
		o.Shell = web.Shell()
	}
	s := &Server{host: host, o: o}
	s.streams, s.stop = context.WithCancel(context.Background())
	s.h = s.guard(s.routes())
	return s
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for _, m := range s.more {
		if rest, ok := strings.CutPrefix(r.URL.Path, m.prefix); ok && strings.HasPrefix(rest, "/") {
			http.StripPrefix(m.prefix, m.s).ServeHTTP(w, r)
			return
		}
	}
	s.h.ServeHTTP(w, r)
}

// stopAll ends the event streams of s and of the servers added to it.
func (s *Server) stopAll() {
	s.stop()
	for _, m := range s.more {
		m.s.stop()
	}
}

// wait waits for the streams of s and of the servers added to it.
func (s *Server) wait() {
	s.running.Wait()
	for _, m := range s.more {
		m.s.running.Wait()
	}
}

// Serve answers requests on ln until ctx ends, then shuts down gracefully:
// event streams end, requests in flight finish (for up to 5 s), and Serve
// returns nil. It does not close the host.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	hs.RegisterOnShutdown(s.stopAll)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.stopAll()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	s.wait()
	return err
}

// Close ends the event streams of a server used as a plain handler
// (Serve does it on shutdown) and waits for them to return.
func (s *Server) Close() {
	s.stopAll()
	s.wait()
}

// Listen opens the listener for addr ("host:port"; port 0 picks a free
// one). A non-loopback host (including an empty one, meaning every
// interface) is refused unless allowRemote: the API runs commands in the
// workspace for whoever holds the token.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--http address %q: %w; give host:port, e.g. %s", addr, err, DefaultAddr)
	}
	if !allowRemote && !loopbackName(host) {
		return nil, fmt.Errorf("refusing to serve on %s: it is not a loopback address, and the API lets whoever holds the token run commands in this workspace; use 127.0.0.1 or localhost, or pass --http-allow-remote to expose it on purpose", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (is another server using the port? port 0 picks a free one)", addr, err)
	}
	return ln, nil
}

// loopbackName reports whether host names the local machine only.
func loopbackName(host string) bool {
	if host == "localhost" || host == "localhost." {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL is the address a person opens: the server's root (or path) with
// the token in the fragment, which a browser never sends to a server; the
// page's script keeps it in the tab. `openseek tui --attach` reads it too.
func URL(ln net.Listener, path, token string) string {
	if path == "" {
		path = "/"
	}
	return "http://" + ln.Addr().String() + path + "#token=" + token
}
