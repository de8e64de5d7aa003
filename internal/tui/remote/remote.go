// Package remote is the terminal UI's backend for `openseek tui --attach
// URL`: a client of the HTTP API of `openseek serve --http` (sessions,
// snapshots, commands, and the server-sent event stream, read with
// github.com/tmaxmax/go-sse). A lost stream is resumed from the last event
// id; a server that stays away is reported, never a crash.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tui"
	"github.com/openseek/openseek/protocol"
)

// Backend talks to one `openseek serve --http` server.
type Backend struct {
	base   string // scheme://host
	token  string
	client *http.Client
	// Retries is how many times a lost event stream is reconnected before
	// the session is reported gone; Backoff is the first pause (doubled).
	Retries int
	Backoff time.Duration
}

// New parses the URL the server printed (http://ADDR/#token=TOKEN; the
// ?token=TOKEN of earlier versions is read too); a URL without a token
// uses token (from $OPENSEEK_HTTP_TOKEN). The token is sent only as
// `Authorization: Bearer`.
func New(raw, token string) (*Backend, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--attach %q is not a server URL: pass the http://ADDR/#token=TOKEN that `openseek serve --http` printed", raw)
	}
	if t := u.Query().Get("token"); t != "" {
		token = t
	}
	if frag, err := url.ParseQuery(u.Fragment); err == nil && frag.Get("token") != "" {
		token = frag.Get("token")
	}
	if token == "" {
		return nil, errors.New("--attach needs the server's token: pass the URL with #token=TOKEN as `openseek serve --http` printed it, or set OPENSEEK_HTTP_TOKEN")
	}
	return &Backend{base: u.Scheme + "://" + u.Host, token: token, client: &http.Client{}, Retries: 5, Backoff: 500 * time.Millisecond}, nil
}

var _ tui.Backend = (*Backend)(nil)

// do sends one API request and decodes a JSON answer into out (nil = none).
func (b *Backend) do(ctx context.Context, method, path string, body []byte, out any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the server at %s cannot be reached (%w): is `openseek serve --http` still running?", b.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("read the answer of %s %s: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		return resp.Header, &StatusError{Code: resp.StatusCode, Text: errorText(data, resp.Status)}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return nil, fmt.Errorf("%s %s answered unreadable JSON: %w", method, path, err)
		}
	}
	return resp.Header, nil
}

// StatusError is an API error answer.
type StatusError struct {
	Code int
	Text string
}

func (e *StatusError) Error() string {
	if e.Code == http.StatusUnauthorized {
		return "the server refused the token (" + e.Text + "): attach with the URL it printed"
	}
	return e.Text
}

func errorText(data []byte, status string) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error != "" {
		return e.Error
	}
	return "server answered " + status
}

// Sessions lists the server's sessions, newest first.
func (b *Backend) Sessions(ctx context.Context) ([]engine.SessionInfo, error) {
	var list []engine.SessionInfo
	if _, err := b.do(ctx, http.MethodGet, "/v1/sessions", nil, &list); err != nil {
		return nil, err
	}
	slices.SortStableFunc(list, func(a, c engine.SessionInfo) int { return cmpMs(c.UpdatedAtMs, a.UpdatedAtMs) })
	return list, nil
}

func cmpMs(a, b *int64) int {
	var x, y int64
	if a != nil {
		x = *a
	}
	if b != nil {
		y = *b
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// SetsApproval: the server keeps the permission mode it was started with.
func (b *Backend) SetsApproval() bool { return false }

// Close has nothing to release: the sessions live on in the server.
func (b *Backend) Close() error { return nil }

type model struct {
	Spec   string `json:"spec"`
	Window int    `json:"window"`
}

// Open resumes or creates a session on the server and follows its events
// from the snapshot on.
func (b *Backend) Open(ctx context.Context, req tui.OpenRequest) (tui.Conn, error) {
	id := req.ID
	if req.Continue {
		list, err := b.Sessions(ctx)
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, errors.New("--continue: the server has no session to continue")
		}
		id = list[0].ID
	}
	hist, head, served, err := b.snapshot(ctx, id)
	var se *StatusError
	if id == "" || errors.As(err, &se) && se.Code == http.StatusNotFound {
		body, _ := json.Marshal(struct {
			ID    string `json:"id,omitempty"`
			Model string `json:"model,omitempty"`
		}{id, req.Model})
		var created opened
		if _, err := b.do(ctx, http.MethodPost, "/v1/sessions", body, &created); err != nil {
			return nil, err
		}
		id, served = created.ID, model{Spec: created.Model, Window: created.Window}
		hist, head, err = nil, 0, nil
	}
	if err != nil {
		return nil, err
	}
	if hist != nil && head == 0 {
		// On disk, not open: reading its stream does not resume it (no
		// GET changes anything), this does.
		var resumed opened
		if _, err := b.do(ctx, http.MethodPost, "/v1/sessions", fmt.Appendf(nil, `{"id":%q}`, id), &resumed); err != nil {
			return nil, err
		}
		served = model{Spec: resumed.Model, Window: resumed.Window}
	}
	c := &conn{b: b, id: id, hist: hist, model: req.Model, ch: make(chan []protocol.Event, 64), last: head}
	if served.Spec != "" {
		// The server says which model the session runs on.
		c.model, c.window = served.Spec, served.Window
	} else {
		// An older server: the catalogue's entry for the asked model.
		var models []model
		if _, err := b.do(ctx, http.MethodGet, "/v1/models", nil, &models); err == nil {
			for _, m := range models {
				if c.model == "" || m.Spec == c.model {
					c.model, c.window = m.Spec, m.Window
					break
				}
			}
		}
	}
	rctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	c.done = make(chan struct{})
	go c.read(rctx)
	return c, nil
}

// opened is the server's answer to POST /v1/sessions: the session and
// the model it runs on.
type opened struct {
	ID     string `json:"id"`
	Model  string `json:"model"`
	Window int    `json:"window"`
}

// snapshot reads the session log, the event id it is current to and,
// for an open session, the model it runs on.
func (b *Backend) snapshot(ctx context.Context, id string) (*session.Session, int64, model, error) {
	if id == "" {
		return nil, 0, model{}, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base+"/v1/sessions/"+url.PathEscape(id), nil)
	if err != nil {
		return nil, 0, model{}, err
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, 0, model{}, fmt.Errorf("the server at %s cannot be reached (%w): is `openseek serve --http` still running?", b.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, model{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, model{}, &StatusError{Code: resp.StatusCode, Text: errorText(data, resp.Status)}
	}
	s, err := session.ParseSnapshot(data)
	if err != nil {
		return nil, 0, model{}, err
	}
	head, _ := strconv.ParseInt(resp.Header.Get("X-OpenSeek-Last-Event-ID"), 10, 64)
	served := model{Spec: resp.Header.Get("X-OpenSeek-Model")}
	served.Window, _ = strconv.Atoi(resp.Header.Get("X-OpenSeek-Model-Window"))
	return s, head, served, nil
}

type conn struct {
	b      *Backend
	id     string
	hist   *session.Session
	model  string
	window int
	ch     chan []protocol.Event
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	last int64 // the newest event id seen
	err  error // why the stream ended
}

func (c *conn) ID() string                { return c.id }
func (c *conn) Model() string             { return c.model }
func (c *conn) Window() int               { return c.window }
func (c *conn) History() *session.Session { return c.hist }

func (c *conn) Next(ctx context.Context) ([]protocol.Event, error) {
	select {
	case evs, ok := <-c.ch:
		if !ok {
			c.mu.Lock()
			defer c.mu.Unlock()
			return nil, c.err
		}
		// Take what else is waiting: one frame for a burst of tokens.
		for len(evs) < 512 {
			select {
			case more, ok := <-c.ch:
				if !ok {
					return evs, nil
				}
				evs = append(evs, more...)
				continue
			default:
			}
			break
		}
		return evs, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *conn) Apply(ctx context.Context, cmd protocol.Command) error {
	_, err := c.b.do(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(c.id)+"/commands", protocol.EmitCommand(cmd), nil)
	return err
}

func (c *conn) Close() error {
	c.cancel()
	<-c.done
	return nil
}

// Lost reports a broken event stream (Retrying: it is being reconnected).
type Lost struct {
	Err      string
	Retrying bool
}

func (Lost) EventName() string { return "connection_lost" }

// Warning is the sentence the UI shows.
func (l Lost) Warning() string {
	if l.Retrying {
		return "lost the event stream (" + l.Err + "); reconnecting…"
	}
	return "lost the server (" + l.Err + "): start `openseek serve --http` again and reattach"
}

// Reconnected reports a stream that was resumed after a loss.
type Reconnected struct{}

func (Reconnected) EventName() string { return "connection_resumed" }

// Warning is the sentence the UI shows.
func (Reconnected) Warning() string { return "reconnected to the server; the stream resumed" }

// read follows the event stream, reconnecting from the last id.
func (c *conn) read(ctx context.Context) {
	defer close(c.done)
	defer close(c.ch)
	fails := 0
	pause := c.b.Backoff
	for {
		got, err := c.stream(ctx, fails > 0)
		if ctx.Err() != nil {
			c.setErr(ctx.Err())
			return
		}
		if got {
			fails, pause = 0, c.b.Backoff
		}
		fails++
		if err == nil {
			err = errors.New("the server ended the stream")
		}
		var se *StatusError
		if fails > c.b.Retries || errors.As(err, &se) && se.Code < 500 {
			c.send(ctx, []protocol.Event{Lost{Err: err.Error()}})
			c.setErr(fmt.Errorf("lost the server at %s: %w", c.b.base, err))
			return
		}
		c.send(ctx, []protocol.Event{Lost{Err: err.Error(), Retrying: true}})
		select {
		case <-ctx.Done():
			c.setErr(ctx.Err())
			return
		case <-time.After(pause):
		}
		pause *= 2
	}
}

func (c *conn) setErr(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
}

func (c *conn) send(ctx context.Context, evs []protocol.Event) bool {
	select {
	case c.ch <- evs:
		return true
	case <-ctx.Done():
		return false
	}
}

// stream reads one connection of the event stream; got reports whether it
// was established.
func (c *conn) stream(ctx context.Context, resumed bool) (got bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.b.base+"/v1/sessions/"+url.PathEscape(c.id)+"/events", nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Authorization", "Bearer "+c.b.token)
	req.Header.Set("Accept", "text/event-stream")
	c.mu.Lock()
	req.Header.Set("Last-Event-ID", strconv.FormatInt(c.last, 10))
	c.mu.Unlock()
	resp, err := c.b.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return false, &StatusError{Code: resp.StatusCode, Text: errorText(data, resp.Status)}
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return false, fmt.Errorf("the events answer is %q, not an event stream", resp.Header.Get("Content-Type"))
	}
	if resumed && !c.send(ctx, []protocol.Event{Reconnected{}}) {
		return true, ctx.Err()
	}
	for ev, err := range sse.Read(resp.Body, &sse.ReadConfig{MaxEventSize: 64 << 20}) {
		if err != nil {
			return true, err
		}
		e, ok := protocol.ParseEvent([]byte(ev.Data))
		if !ok {
			continue // an event this client does not know
		}
		if r, isReset := e.(protocol.StreamReset); isReset {
			c.mu.Lock()
			c.last = r.Resume
			c.mu.Unlock()
		} else if n, err := strconv.ParseInt(ev.LastEventID, 10, 64); err == nil && n > 0 {
			c.mu.Lock()
			c.last = n
			c.mu.Unlock()
		}
		if !c.send(ctx, []protocol.Event{e}) {
			return true, ctx.Err()
		}
	}
	return true, nil
}
