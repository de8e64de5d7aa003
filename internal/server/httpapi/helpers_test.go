package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"strings"
	"testing"
	"time"

	sse "github.com/tmaxmax/go-sse"
	"go.uber.org/goleak"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testToken = "test-token-0123456789"

// fixture is a real server on a loopback port over a real host whose
// model is the scripted llmtest server.
type fixture struct {
	t      *testing.T
	host   *engine.Host
	srv    *Server
	base   string // http://127.0.0.1:PORT
	client *http.Client
}

type setup struct {
	readOnly  bool
	keepAlive time.Duration
	dir       string // workspace (default: a temp dir)
	opts      func(*engine.Options)
	mount     func(*http.ServeMux)
	add       func(*Server) // called before serving (Server.Add)
}

func start(t *testing.T, model *llmtest.Server, su setup) *fixture {
	t.Helper()
	if su.dir == "" {
		su.dir = t.TempDir()
	}
	o := engine.Options{
		Dir: su.dir, Home: t.TempDir(), NoSandbox: true,
		Retry:  llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond},
		Getenv: func(string) string { return "" },
	}
	if model != nil {
		o.Model, o.APIURL = "test-model", model.URL()
	}
	if su.opts != nil {
		su.opts(&o)
	}
	host, err := engine.NewHost(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(host, Options{Token: testToken, ReadOnly: su.readOnly, KeepAlive: su.keepAlive, Mount: su.mount})
	if su.add != nil {
		su.add(srv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	f := &fixture{t: t, host: host, srv: srv, base: "http://" + ln.Addr().String(),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}}
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		host.Close()
		f.client.CloseIdleConnections()
	})
	return f
}

// do sends a request with the token (unless header says otherwise) and
// returns the status and body.
func (f *fixture) do(method, path, body string, header ...string) (int, string, http.Header) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.base+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if method != http.MethodGet && method != http.MethodHead {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := f.client.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), resp.Header
}

// newSession opens a session through the API.
func (f *fixture) newSession(body string) string {
	f.t.Helper()
	code, out, _ := f.do("POST", "/v1/sessions", body)
	if code != http.StatusCreated {
		f.t.Fatalf("POST /v1/sessions = %d %s", code, out)
	}
	var r struct{ ID string }
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.ID == "" {
		f.t.Fatalf("POST /v1/sessions answered %s", out)
	}
	return r.ID
}

// command posts one protocol command and wants 202.
func (f *fixture) command(id, line string) {
	f.t.Helper()
	if code, out, _ := f.do("POST", "/v1/sessions/"+id+"/commands", line); code != http.StatusAccepted {
		f.t.Fatalf("command %s = %d %s", line, code, out)
	}
}

// stream is one SSE client.
type sseClient struct {
	resp  *http.Response
	next  func() (sse.Event, error, bool)
	stop  func()
	close context.CancelFunc
}

// subscribe opens the events of a session; query and Last-Event-ID as given.
func (f *fixture) subscribe(id, query, lastID string) *sseClient {
	f.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", f.base+"/v1/sessions/"+id+"/events"+query, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		cancel()
		f.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		resp.Body.Close()
		f.t.Fatalf("events = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	next, stop := iter.Pull2(iter.Seq2[sse.Event, error](sse.Read(resp.Body, &sse.ReadConfig{MaxEventSize: 1 << 20})))
	s := &sseClient{resp: resp, next: next, stop: stop, close: cancel}
	f.t.Cleanup(s.Close)
	return s
}

// Close drops the connection (a client going away).
func (s *sseClient) Close() {
	s.close()
	s.stop()
	s.resp.Body.Close()
}

// until reads events up to and including the first for which done is
// true; an error or the end of the stream fails the test.
func (s *sseClient) until(t testing.TB, done func(sse.Event) bool) []sse.Event {
	t.Helper()
	var got []sse.Event
	for {
		ev, err, ok := s.next()
		if !ok || err != nil {
			t.Fatalf("stream ended after %d events: %v", len(got), err)
		}
		got = append(got, ev)
		if done(ev) {
			return got
		}
	}
}

func named(name string) func(sse.Event) bool {
	return func(e sse.Event) bool { return e.Type == name }
}

// waitFor polls cond (a synchronisation, not a timed assertion).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
