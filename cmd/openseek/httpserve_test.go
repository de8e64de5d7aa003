package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"github.com/openseek/openseek/internal/e2etest"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/server/httpapi"
)

// httpServer is a running `openseek serve --http` or `inspect` child.
type httpServer struct {
	cmd    *exec.Cmd
	home   string
	url    *url.URL // as printed, with the token
	token  string
	base   string
	client *http.Client
	waited chan error
}

// startHTTP starts the binary and reads the URL it prints on stderr.
func startHTTP(t *testing.T, ws, home string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = ws
	cmd.Env = append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + home, "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1"}, startPathEnv()...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &httpServer{cmd: cmd, home: home, waited: make(chan error, 1),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}}
	sc := bufio.NewScanner(stderr)
	var seen []string
	for sc.Scan() {
		line := sc.Text()
		seen = append(seen, line)
		if rest, ok := strings.CutPrefix(line, "openseek: serving "); ok {
			if s.url, err = url.Parse(rest); err != nil {
				t.Fatalf("printed URL %q: %v", rest, err)
			}
			break
		}
	}
	if s.url == nil {
		cmd.Wait()
		t.Fatalf("no URL printed; stderr:\n%s", strings.Join(seen, "\n"))
	}
	go io.Copy(io.Discard, stderr)
	go func() { s.waited <- cmd.Wait() }()
	frag, _ := url.ParseQuery(s.url.Fragment)
	s.token = frag.Get("token")
	if s.token == "" || s.url.RawQuery != "" {
		t.Fatalf("the printed URL %s does not carry the token in its fragment (and only there)", s.url)
	}
	s.base = "http://" + s.url.Host
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.waited
		s.client.CloseIdleConnections()
	})
	return s
}

// stop sends sig and wants a clean exit.
func (s *httpServer) stop(t *testing.T, sig os.Signal) {
	t.Helper()
	s.client.CloseIdleConnections()
	s.cmd.Process.Signal(sig)
	if err := <-s.waited; err != nil {
		t.Errorf("exit after %v: %v", sig, err)
	}
	s.waited <- nil
}

func (s *httpServer) do(t *testing.T, method, path, body string, mod func(*http.Request)) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, s.base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.token)
	if method != http.MethodGet && method != http.MethodHead {
		req.Header.Set("Content-Type", "application/json")
	}
	if mod != nil {
		mod(req)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), resp.Header
}

// events opens a session's stream and returns a pull iterator over it.
func (s *httpServer) events(t *testing.T, id, lastID string) func() (sse.Event, error, bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/v1/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+s.token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := s.client.Do(req)
	if err != nil || resp.StatusCode != 200 {
		cancel()
		t.Fatalf("events: %v %v", err, resp)
	}
	next, stop := iter.Pull2(iter.Seq2[sse.Event, error](sse.Read(resp.Body, nil)))
	t.Cleanup(func() { cancel(); stop(); resp.Body.Close() })
	return next
}

func readUntil(t *testing.T, next func() (sse.Event, error, bool), name string) []sse.Event {
	t.Helper()
	var got []sse.Event
	for {
		ev, err, ok := next()
		if !ok || err != nil {
			t.Fatalf("stream ended after %d events: %v", len(got), err)
		}
		got = append(got, ev)
		if ev.Type == name {
			return got
		}
	}
}

// The real binary serves HTTP: token and Host checks, 200 clients on one
// session's stream during a turn, a reconnect that replays the rest, and
// a clean exit on SIGTERM.
func TestServeHTTPBinary(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"echo hi"}`}),
		llmtest.Reply{Text: "two hundred readers", ChunkSize: 3})
	s := startHTTP(t, ws, home, append(modelArgs(srv), "serve", "--http", "127.0.0.1:0")...)
	if s.url.Path != "/" || s.url.Port() == "0" {
		t.Errorf("printed URL %s", s.url)
	}
	kept, err := os.ReadFile(httpapi.TokenPath(home))
	if err != nil || strings.TrimSpace(string(kept)) != s.token {
		t.Errorf("the printed token is not the kept one: %q %v", kept, err)
	}
	if st, err := os.Stat(httpapi.TokenPath(home)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode: %v %v", st, err)
	}
	if code, _, _ := s.do(t, "GET", "/v1/sessions", "", func(r *http.Request) { r.Header.Del("Authorization") }); code != 401 {
		t.Errorf("no token = %d", code)
	}
	if code, _, _ := s.do(t, "GET", "/v1/sessions", "", func(r *http.Request) { r.Header.Set("Authorization", "Bearer wrong") }); code != 401 {
		t.Errorf("wrong token = %d", code)
	}
	if code, _, _ := s.do(t, "GET", "/v1/sessions", "", func(r *http.Request) { r.Host = "rebound.example:" + s.url.Port() }); code != 403 {
		t.Errorf("foreign Host = %d", code)
	}
	// A browser opening the printed URL sends no token (it is in the
	// fragment): it gets the page shell, and no cookie.
	code, body, h := s.do(t, "GET", s.url.Path, "", func(r *http.Request) { r.Header.Del("Authorization") })
	if code != 200 || !strings.Contains(body, `data-shell="true"`) || h.Get("Set-Cookie") != "" {
		t.Errorf("opening the URL = %d %v %s", code, h, body)
	}
	if code, _, _ := s.do(t, "POST", "/v1/sessions", `{"id":"plain"}`, func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }); code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain POST = %d", code)
	}

	code, body, _ = s.do(t, "POST", "/v1/sessions", `{"id":"web"}`, nil)
	if code != 201 || !strings.Contains(body, `"id":"web"`) {
		t.Fatalf("POST /v1/sessions = %d %s", code, body)
	}
	const n = 200
	streams := make([]func() (sse.Event, error, bool), n)
	for i := range streams {
		streams[i] = s.events(t, "web", "")
	}
	// Every client has its stream once it read the session's first event.
	firsts := make([]sse.Event, n)
	for i, next := range streams {
		firsts[i] = readUntil(t, next, "session_started")[0]
	}
	if code, body, _ := s.do(t, "POST", "/v1/sessions/web/commands", `{"command":"prompt","content":"go"}`, nil); code != 202 {
		t.Fatalf("prompt = %d %s", code, body)
	}
	got := make([][]sse.Event, n)
	var wg sync.WaitGroup
	for i, next := range streams {
		wg.Go(func() { got[i] = readUntil(t, next, "turn_summary") })
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if len(got[i]) != len(got[0]) || firsts[i] != firsts[0] {
			t.Fatalf("client %d saw %d events, client 0 %d", i, len(got[i]), len(got[0]))
		}
		for j := range got[0] {
			if got[i][j] != got[0][j] {
				t.Fatalf("client %d event %d differs: %+v vs %+v", i, j, got[i][j], got[0][j])
			}
		}
	}
	var text strings.Builder
	for _, e := range got[0] {
		if e.Type == "assistant_delta" {
			var d struct{ Content string }
			json.Unmarshal([]byte(e.Data), &d)
			text.WriteString(d.Content)
		}
	}
	if text.String() != "two hundred readers" {
		t.Errorf("streamed answer %q", text.String())
	}

	// A client that left after the tool call comes back for the rest.
	var mid int
	for i, e := range got[0] {
		if e.Type == "tool_result" {
			mid = i
		}
	}
	rest := readUntil(t, s.events(t, "web", got[0][mid].LastEventID), "turn_summary")
	if len(rest) != len(got[0])-mid-1 || rest[0] != got[0][mid+1] {
		t.Errorf("replay after %s: %d events, want %d", got[0][mid].LastEventID, len(rest), len(got[0])-mid-1)
	}
	id, _ := strconv.Atoi(rest[len(rest)-1].LastEventID)
	if code, _, h := s.do(t, "GET", "/v1/sessions/web", "", nil); code != 200 || h.Get(httpapi.LastEventHeader) != strconv.Itoa(id) {
		t.Errorf("snapshot = %d, last event %q want %d", code, h.Get(httpapi.LastEventHeader), id)
	}
	s.stop(t, syscall.SIGTERM)
}

// A non-loopback address is refused without --http-allow-remote.
func TestServeHTTPRefusesRemoteAddress(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	r := openseek(t, t.TempDir(), "", nil, append(modelArgs(srv), "serve", "--http", "0.0.0.0:0")...)
	if r.code != 1 || !strings.Contains(r.stderr, "--http-allow-remote") {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
}

// inspect serves the sessions read-only with no model key at all.
func TestInspectBinary(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("recorded"))
	if r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "--session", "s1", "hello")...); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	logPath := filepath.Join(ws, ".openseek", "sessions", "s1", "openseek_session-s1.jsonl")
	before, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	s := startHTTP(t, ws, t.TempDir(), "inspect", "s1")
	if s.url.Path != "/sessions/s1" || s.token == "" {
		t.Errorf("printed URL %s", s.url)
	}
	code, body, _ := s.do(t, "GET", "/v1/sessions/s1", "", nil)
	if code != 200 || !strings.Contains(body, "recorded") {
		t.Errorf("snapshot = %d %s", code, body)
	}
	if code, _, _ := s.do(t, "POST", "/v1/sessions/s1/commands", `{"command":"prompt","content":"x"}`, nil); code != 405 {
		t.Errorf("POST in inspect = %d, want 405", code)
	}
	s.stop(t, syscall.SIGINT)
	if after, _ := os.ReadFile(logPath); string(after) != string(before) {
		t.Error("inspect changed the session log")
	}
	if r := openseek(t, ws, "", nil, "inspect", "nope", "--addr", "127.0.0.1:0"); r.code != 1 || !strings.Contains(r.stderr, "nope") {
		t.Errorf("inspect of an unknown session: %d %s", r.code, r.stderr)
	}
}

// TestHTTPServerAsOrdinaryUser runs the HTTP server's end-to-end tests
// again as an ordinary user, as most people run it.
func TestHTTPServerAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestServeHTTPBinary|TestInspectBinary|TestCurlAsTheREADMEShows|TestBrowserCannotBeTurnedAgainstTheUser|TestWebAppTwoWorkspacesBinary)$")
}

// The README's curl commands drive the real server: --json creates a
// session and prompts it, the answer is in its snapshot; a form-encoded
// POST (curl -d) is refused with 415, saying to use --json.
func TestCurlAsTheREADMEShows(t *testing.T) {
	t.Parallel()
	curl := e2etest.Need(t, "Debian: apt-get install -y curl", "curl")
	srv := llmtest.NewServer(t, llmtest.Text("curl works"))
	s := startHTTP(t, t.TempDir(), t.TempDir(), append(modelArgs(srv), "serve", "--http", "127.0.0.1:0")...)
	run := func(args ...string) (string, string) {
		t.Helper()
		args = append([]string{"-s", "-w", "\n%{http_code}", "-H", "Authorization: Bearer " + s.token}, args...)
		out, err := exec.Command(curl, args...).Output()
		if err != nil {
			t.Fatalf("curl %v: %v", args, err)
		}
		i := bytes.LastIndexByte(out, '\n')
		return string(out[:i]), string(out[i+1:])
	}
	if body, code := run("--json", `{"id":"feat-x"}`, s.base+"/v1/sessions"); code != "201" || !strings.Contains(body, "feat-x") {
		t.Fatalf("create = %s %s", code, body)
	}
	if body, code := run("-d", `{"command":"prompt","content":"x"}`, s.base+"/v1/sessions/feat-x/commands"); code != "415" || !strings.Contains(body, "--json") {
		t.Errorf("curl -d = %s %s", code, body)
	}
	if body, code := run("--json", `{"command":"prompt","content":"hello"}`, s.base+"/v1/sessions/feat-x/commands"); code != "202" {
		t.Fatalf("prompt = %s %s", code, body)
	}
	for {
		body, code := run(s.base + "/v1/sessions/feat-x")
		if code != "200" {
			t.Fatalf("snapshot = %s %s", code, body)
		}
		if strings.Contains(body, `"kind":"terminal"`) {
			if !strings.Contains(body, "curl works") {
				t.Errorf("the turn ended without the answer: %s", body)
			}
			break
		}
		time.Sleep(20 * time.Millisecond) // poll until the turn is logged
	}
	s.stop(t, syscall.SIGTERM)
}
