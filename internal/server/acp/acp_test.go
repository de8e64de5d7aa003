package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/server/acp/acptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// client is an ACP client that records the updates it gets and answers
// permission questions with answer (nil = reject).
type client struct {
	acptest.NoTerminals
	mu        sync.Mutex
	updates   []sdk.SessionNotification
	asked     []sdk.RequestPermissionRequest
	answer    func(sdk.RequestPermissionRequest) string
	notify    chan struct{}      // a token per update
	buffers   map[string]string  // files open in the editor, by absolute path
	reads     []string           // fs/read_text_file requests
	writes    []string           // fs/write_text_file requests
	hold      chan sdk.SessionId // when set, questions are not answered
	withdrawn chan struct{}      // a token per question the agent withdrew
}

func newClient() *client { return &client{notify: make(chan struct{}, 1024)} }

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
	return nil
}

func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	answer, hold := c.answer, c.hold
	c.mu.Unlock()
	if hold != nil {
		// A person who does not answer: the question waits until the
		// agent withdraws it.
		hold <- p.SessionId
		<-ctx.Done()
		c.withdrawn <- struct{}{}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	opt := optReject
	if answer != nil {
		opt = answer(p)
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(opt))}, nil
}

func (c *client) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, p.Path)
	if text, ok := c.buffers[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	return sdk.ReadTextFileResponse{}, errors.New("not open in the editor")
}

func (c *client) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, p.Path)
	return sdk.WriteTextFileResponse{}, errors.New("not offered")
}

// take returns the updates so far and forgets them.
func (c *client) take() []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []sdk.SessionUpdate
	for _, n := range c.updates {
		out = append(out, n.Update)
	}
	c.updates = nil
	return out
}

// rig is one agent served over pipes to an SDK client.
type rig struct {
	conn *sdk.ClientSideConnection
	cl   *client
	ws   string
}

// serve runs Serve against a real host per cwd (on the scripted model)
// and connects an SDK client; cleanup closes the pipes and waits for
// Serve to return.
func serve(t *testing.T, srv *llmtest.Server, ws, home, approval string) *rig {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	newHost := func(ctx context.Context, dir string) (*engine.Host, error) {
		return engine.NewHost(ctx, engine.Options{Dir: dir, Home: home, Model: "test-model", APIURL: srv.URL(),
			NoSandbox: true, Approval: approval, HTTPClient: &http.Client{Transport: tr},
			Getenv: func(k string) string {
				if k == "OPENSEEK_RETRY_BACKOFF_MS" {
					return "1"
				}
				return ""
			}})
	}
	inR, inW := io.Pipe()   // client → agent
	outR, outW := io.Pipe() // agent → client
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), inR, outW, Options{NewHost: newHost, Holder: "test"})
		outW.Close()
	}()
	cl := newClient()
	conn := sdk.NewClientSideConnection(cl, inW, outR)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("Serve did not return after the client closed its input")
		}
		<-conn.Done()
	})
	ctx := context.Background()
	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true}, Terminal: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.PromptCapabilities.Image || !init.AgentCapabilities.PromptCapabilities.EmbeddedContext {
		t.Errorf("capabilities %+v", init.AgentCapabilities)
	}
	return &rig{conn: conn, cl: cl, ws: ws}
}

func (r *rig) newSession(t *testing.T) sdk.SessionId {
	t.Helper()
	s, err := r.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: r.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return s.SessionId
}

func (r *rig) prompt(t *testing.T, id sdk.SessionId, text string) sdk.StopReason {
	t.Helper()
	resp, err := r.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	return resp.StopReason
}

// diffs are the diff contents of the tool call updates.
func diffs(us []sdk.SessionUpdate) []sdk.ToolCallContentDiff {
	var out []sdk.ToolCallContentDiff
	for _, u := range us {
		if u.ToolCallUpdate == nil {
			continue
		}
		for _, c := range u.ToolCallUpdate.Content {
			if c.Diff != nil {
				out = append(out, *c.Diff)
			}
		}
	}
	return out
}

// A turn streams as updates: thoughts, a tool call and its result with
// the edit's diff, a plan, the answer; loading the session again replays
// it from the log.
func TestPromptStreamsAndLoadReplays(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\nworld\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "edit it", Calls: []llmtest.Call{
			{ID: "p1", Name: "plan", Args: `{"steps":[{"step":"edit a.txt","status":"in_progress"},{"step":"report","status":"pending"}]}`},
			{ID: "e1", Name: "edit", Args: `{"path":"a.txt","old_string":"world","new_string":"there"}`},
		}},
		llmtest.Text("edited a.txt"),
	)
	r := serve(t, srv, ws, home, "never")
	id := r.newSession(t)
	if got := r.prompt(t, id, "change world to there"); got != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q", got)
	}
	live := r.cl.take()
	want := "thought tool_call:think plan update:completed tool_call:edit update:completed message"
	if got := acptest.Kinds(live); got != want {
		t.Errorf("updates\n got %s\nwant %s", got, want)
	}
	if got := acptest.Text(live, acptest.Agent); got != "edited a.txt" {
		t.Errorf("answer %q", got)
	}
	if got := acptest.Text(live, acptest.Thought); got != "edit it" {
		t.Errorf("thought %q", got)
	}
	// Each model response updates the editor's context meter.
	var meters []sdk.SessionUsageUpdate
	for _, u := range live {
		if u.UsageUpdate != nil {
			meters = append(meters, *u.UsageUpdate)
		}
	}
	if len(meters) != 2 || meters[1].Used <= 0 || meters[1].Size <= meters[1].Used {
		t.Errorf("usage updates %+v", meters)
	}
	d := diffs(live)
	if len(d) != 1 || d[0].Path != filepath.Join(ws, "a.txt") || d[0].OldText == nil || *d[0].OldText != "world" || d[0].NewText != "there" {
		t.Errorf("diff %+v", d)
	}
	for _, u := range live {
		if tc := u.ToolCall; tc != nil && tc.Kind == sdk.ToolKindEdit {
			if tc.Title != "Edit a.txt" || len(tc.Locations) != 1 || tc.Locations[0].Path != filepath.Join(ws, "a.txt") {
				t.Errorf("edit tool call %+v", tc)
			}
		}
		if p := u.Plan; p != nil {
			if len(p.Entries) != 2 || p.Entries[0].Status != sdk.PlanEntryStatusInProgress || p.Entries[1].Content != "report" {
				t.Errorf("plan %+v", p.Entries)
			}
		}
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(data) != "hello\nthere\n" {
		t.Errorf("a.txt = %q", data)
	}

	// A second connection (an editor restarted) loads the session.
	r2 := serve(t, srv, ws, home, "never")
	if _, err := r2.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []sdk.McpServer{}}); err == nil {
		t.Error("loading a session another connection holds open succeeded")
	}
	r.conn.CloseSession(context.Background(), sdk.CloseSessionRequest{SessionId: id})
	if _, err := r2.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("load: %v", err)
	}
	replay := r2.cl.take()
	want = "user thought tool_call:think plan tool_call:edit update:completed update:completed message"
	if got := acptest.Kinds(replay); got != want {
		t.Errorf("replay\n got %s\nwant %s", got, want)
	}
	if got := acptest.Text(replay, acptest.User); got != "change world to there" {
		t.Errorf("replayed user message %q", got)
	}
	if got := acptest.Text(replay, acptest.Agent); got != "edited a.txt" {
		t.Errorf("replayed answer %q", got)
	}
	if d := diffs(replay); len(d) != 1 || d[0].NewText != "there" {
		t.Errorf("replayed diff %+v", d)
	}
}

// With approval mode ask, a command is asked about with
// session/request_permission; the answer decides whether it runs.
func TestPermission(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"touch allowed.txt"}`}),
		llmtest.Calls(llmtest.Call{ID: "d", Name: "shell", Args: `{"cmd":"touch denied.txt"}`}),
		llmtest.Text("done"),
	)
	r := serve(t, srv, ws, t.TempDir(), "ask")
	r.cl.answer = func(p sdk.RequestPermissionRequest) string {
		if p.ToolCall.ToolCallId == "a" {
			return optAllowOnce
		}
		return optReject
	}
	id := r.newSession(t)
	if got := r.prompt(t, id, "touch two files"); got != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q", got)
	}
	if len(r.cl.asked) != 2 {
		t.Fatalf("asked %d times", len(r.cl.asked))
	}
	q := r.cl.asked[0]
	if q.SessionId != id || q.ToolCall.Kind == nil || *q.ToolCall.Kind != sdk.ToolKindExecute || len(q.Options) != 3 || q.ToolCall.Title == nil || *q.ToolCall.Title == "" {
		t.Errorf("permission request %+v", q)
	}
	if _, err := os.Stat(filepath.Join(ws, "allowed.txt")); err != nil {
		t.Error("the allowed command did not run")
	}
	if _, err := os.Stat(filepath.Join(ws, "denied.txt")); err == nil {
		t.Error("the rejected command ran")
	}
	if got := acptest.Kinds(r.cl.take()); got != "tool_call:execute update:completed tool_call:execute update:failed message" {
		t.Errorf("updates %s", got)
	}
}

// session/cancel ends the running turn with stop reason cancelled.
func TestCancel(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Stall{After: 2}, llmtest.Text("after"))
	r := serve(t, srv, t.TempDir(), t.TempDir(), "never")
	id := r.newSession(t)
	got := make(chan sdk.StopReason, 1)
	go func() {
		resp, err := r.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
		if err != nil {
			t.Errorf("prompt: %v", err)
		}
		got <- resp.StopReason
	}()
	<-r.cl.notify // the turn streams
	if err := r.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if reason := <-got; reason != sdk.StopReasonCancelled {
		t.Errorf("stop reason %q", reason)
	}
	r.cl.take()
	if reason, got := r.prompt(t, id, "again"), acptest.Text(r.cl.take(), acptest.Agent); reason != sdk.StopReasonEndTurn || got != "after" {
		t.Errorf("the session did not go on after a cancel: %q, said %q", reason, got)
	}
}

// Requests the agent cannot serve get JSON-RPC errors with a reason.
func TestBadSessionRequests(t *testing.T) {
	srv := llmtest.NewServer(t)
	r := serve(t, srv, t.TempDir(), t.TempDir(), "never")
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"relative cwd", func() error {
			_, err := r.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "rel/dir", McpServers: []sdk.McpServer{}})
			return err
		}, "not an absolute path"},
		{"missing cwd", func() error {
			_, err := r.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: filepath.Join(r.ws, "nope"), McpServers: []sdk.McpServer{}})
			return err
		}, "not an existing directory"},
		{"unknown session", func() error {
			_, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: "cli-nope", Prompt: []sdk.ContentBlock{sdk.TextBlock("x")}})
			return err
		}, "unknown session"},
		{"load unknown", func() error {
			_, err := r.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "cli-20200101-000000-000", Cwd: r.ws, McpServers: []sdk.McpServer{}})
			return err
		}, "no session cli-20200101-000000-000"},
		{"load bad id", func() error {
			_, err := r.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "../x", Cwd: r.ws, McpServers: []sdk.McpServer{}})
			return err
		}, "id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var re *sdk.RequestError
			if !errors.As(err, &re) || !strings.Contains(re.Message, tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	id := r.newSession(t)
	_, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.AudioBlock("AAAA", "audio/wav")}})
	if err == nil || !strings.Contains(err.Error(), "audio") {
		t.Errorf("an audio prompt: %v", err)
	}
}

// Raw lines: what is not a readable request gets a JSON-RPC error and
// the connection goes on serving.
func TestMalformedRequests(t *testing.T) {
	srv := llmtest.NewServer(t)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), inR, outW, Options{NewHost: func(ctx context.Context, dir string) (*engine.Host, error) {
			return engine.NewHost(ctx, engine.Options{Dir: dir, Home: t.TempDir(), Model: "m", APIURL: srv.URL(), HTTPClient: &http.Client{Transport: tr}, Getenv: func(string) string { return "" }})
		}})
		outW.Close()
	}()
	dec := json.NewDecoder(outR)
	tests := []struct {
		line string
		id   string
		code int
	}{
		{`this is not json`, "null", -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`, "null", -32700},
		{`[1,2,3]`, "null", -32600},
		{`{"jsonrpc":"2.0","id":2}`, "2", -32600},
		{`{"jsonrpc":"2.0","id":3,"method":42}`, "3", -32600},
		{`{"jsonrpc":"2.0","id":4,"method":"no/such_method","params":{}}`, "4", -32601},
		{`{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":7}}`, "5", -32602},
		{`{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"x","prompt":[]}}`, "6", -32602},
		{`{"jsonrpc":"2.0","id":"seven","method":"initialize","params":{"protocolVersion":1}}`, `"seven"`, 0},
	}
	for _, tc := range tests {
		if _, err := io.WriteString(inW, tc.line+"\n"); err != nil {
			t.Fatal(err)
		}
		var resp struct {
			ID     json.RawMessage
			Result json.RawMessage
			Error  *struct {
				Code    int
				Message string
			}
		}
		if err := dec.Decode(&resp); err != nil {
			t.Fatalf("%s: no answer: %v", tc.line, err)
		}
		switch {
		case string(resp.ID) != tc.id:
			t.Errorf("%s: answered id %s, want %s", tc.line, resp.ID, tc.id)
		case tc.code == 0 && (resp.Error != nil || !strings.Contains(string(resp.Result), `"loadSession":true`)):
			t.Errorf("%s: %+v %s", tc.line, resp.Error, resp.Result)
		case tc.code != 0 && (resp.Error == nil || resp.Error.Code != tc.code || resp.Error.Message == ""):
			t.Errorf("%s: error %+v, want code %d", tc.line, resp.Error, tc.code)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// The read tool reads through the editor (fs/read_text_file) when the
// client offered it: an open buffer's unsaved text wins over the disk; a
// file the editor cannot give is read from the disk.
func TestReadThroughTheEditor(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "open.txt"), []byte("saved text\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "closed.txt"), []byte("disk only\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Calls(
			llmtest.Call{ID: "r1", Name: "read", Args: `{"path":"open.txt"}`},
			llmtest.Call{ID: "r2", Name: "read", Args: `{"path":"closed.txt"}`},
		),
		llmtest.Text("read both"),
	)
	r := serve(t, srv, ws, t.TempDir(), "never")
	r.cl.buffers = map[string]string{filepath.Join(ws, "open.txt"): "unsaved edit\n"}
	id := r.newSession(t)
	r.prompt(t, id, "read the files")
	results := map[string]string{}
	for _, u := range r.cl.take() {
		if tu := u.ToolCallUpdate; tu != nil {
			for _, c := range tu.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					results[string(tu.ToolCallId)] += c.Content.Content.Text.Text
				}
			}
		}
	}
	if !strings.Contains(results["r1"], "1\tunsaved edit") || strings.Contains(results["r1"], "saved text") {
		t.Errorf("open file read %q, want the editor's buffer", results["r1"])
	}
	if !strings.Contains(results["r2"], "1\tdisk only") {
		t.Errorf("closed file read %q, want the disk", results["r2"])
	}
	if len(r.cl.reads) != 2 || r.cl.reads[0] != filepath.Join(ws, "open.txt") {
		t.Errorf("fs/read_text_file requests %q", r.cl.reads)
	}
}

// "Allow for this session" remembers: the same command pattern is not
// asked about again.
func TestPermissionAllowAlways(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"touch one.txt"}`}),
		llmtest.Calls(llmtest.Call{ID: "b", Name: "shell", Args: `{"cmd":"touch two.txt"}`}),
		llmtest.Text("done"),
	)
	r := serve(t, srv, ws, t.TempDir(), "ask")
	r.cl.answer = func(sdk.RequestPermissionRequest) string { return optAllowAlways }
	id := r.newSession(t)
	r.prompt(t, id, "touch two files")
	if len(r.cl.asked) != 1 {
		t.Errorf("asked %d times, want once", len(r.cl.asked))
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s was not made", f)
		}
	}
}

// Cancelling a turn that waits for a permission withdraws the question
// in the editor and ends the turn as cancelled; the command does not run.
func TestCancelWhileAsking(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"touch never.txt"}`}),
	)
	r := serve(t, srv, ws, t.TempDir(), "ask")
	r.cl.hold, r.cl.withdrawn = make(chan sdk.SessionId, 1), make(chan struct{}, 1)
	id := r.newSession(t)
	got := make(chan sdk.StopReason, 1)
	go func() {
		resp, err := r.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
		if err != nil {
			t.Errorf("prompt: %v", err)
		}
		got <- resp.StopReason
	}()
	<-r.cl.hold
	if err := r.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if reason := <-got; reason != sdk.StopReasonCancelled {
		t.Errorf("stop reason %q", reason)
	}
	if _, err := os.Stat(filepath.Join(ws, "never.txt")); err == nil {
		t.Error("the command ran without an answer")
	}
	// The withdrawal ($/cancel_request) may land just after the response.
	select {
	case <-r.cl.withdrawn:
	case <-time.After(20 * time.Second):
		t.Error("the permission question was not withdrawn")
	}
}

// A turn that fails is a JSON-RPC error saying why; the session goes on.
func TestFailedTurn(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Fail{Status: 400}, llmtest.Text("fine now"))
	r := serve(t, srv, t.TempDir(), t.TempDir(), "never")
	id := r.newSession(t)
	_, err := r.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("x")}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "400") {
		t.Errorf("a failed turn answered %v", err)
	}
	r.cl.take()
	if reason := r.prompt(t, id, "again"); reason != sdk.StopReasonEndTurn || acptest.Text(r.cl.take(), acptest.Agent) != "fine now" {
		t.Errorf("the session did not go on after a failed turn: %q", reason)
	}
}

// Workspace warnings reach the editor once, at the first prompt, as a
// quoted paragraph of the agent's message (a thought is the model's
// reasoning, which editors fold away); a second session of the same
// connection does not repeat them.
func TestStartupWarnings(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(ws, ".openseek", "config.toml"), []byte("[[rules]]\npattern = [\"git\", \"push\"]\ndecision = \"allow\"\n"), 0o644)
	srv := llmtest.NewServer(t, llmtest.Text("one"), llmtest.Text("two"), llmtest.Text("three"))
	r := serve(t, srv, ws, t.TempDir(), "never")
	id := r.newSession(t)
	r.prompt(t, id, "x")
	ups := r.cl.take()
	if msg := acptest.Text(ups, acptest.Agent); !strings.HasPrefix(strings.TrimSpace(msg), "> ") || !strings.Contains(msg, "trust") || !strings.HasSuffix(msg, "one") {
		t.Errorf("first prompt message %q, want the ignored-rules warning quoted, then the answer", msg)
	}
	if th := acptest.Text(ups, acptest.Thought); th != "" {
		t.Errorf("a warning came as a thought: %q", th)
	}
	r.prompt(t, id, "y")
	if msg := acptest.Text(r.cl.take(), acptest.Agent); msg != "two" {
		t.Errorf("the warning came again: %q", msg)
	}
	srv.ExpectPrefixBreak() // a new session starts a new conversation
	id2 := r.newSession(t)
	r.prompt(t, id2, "z")
	if msg := acptest.Text(r.cl.take(), acptest.Agent); msg != "three" {
		t.Errorf("a second session repeats the warning: %q", msg)
	}
}

// nested lists the tool calls announced, "title<parent" for the calls a
// script made (their parent from _meta.openseek.parentToolCallId).
func nested(us []sdk.SessionUpdate) []string {
	var out []string
	for _, u := range us {
		tc := u.ToolCall
		if tc == nil {
			continue
		}
		s := string(tc.ToolCallId) + " " + tc.Title
		if o, ok := tc.Meta["openseek"].(map[string]any); ok {
			s += " <" + fmt.Sprint(o["parentToolCallId"])
		}
		out = append(out, s)
	}
	return out
}

// The calls a script makes show under the script's call, live and when
// the session is loaded again alike: titled "↳ …" with their arguments,
// naming the script's call as their parent.
func TestScriptCallsNestLiveAndInReplay(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644)
	code, _ := json.Marshal(map[string]string{"code": "print(read(path = \"a.txt\"))\nprint(shell(cmd = \"echo hi\"))\n"})
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "s1", Name: "script", Args: string(code)}),
		llmtest.Text("read it"),
	)
	r := serve(t, srv, ws, home, "never")
	id := r.newSession(t)
	if got := r.prompt(t, id, "read a.txt in a script"); got != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q", got)
	}
	live := nested(r.cl.take())
	want := []string{"s1 script", "s1.1 ↳ Read a.txt <s1", "s1.2 ↳ echo hi <s1"}
	if strings.Join(live, "|") != strings.Join(want, "|") {
		t.Errorf("live tool calls\n got %q\nwant %q", live, want)
	}
	r.conn.CloseSession(context.Background(), sdk.CloseSessionRequest{SessionId: id})
	r2 := serve(t, srv, ws, home, "never")
	if _, err := r2.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("load: %v", err)
	}
	if replay := nested(r2.cl.take()); strings.Join(replay, "|") != strings.Join(live, "|") {
		t.Errorf("replayed tool calls\n got %q\nwant %q (as live)", replay, live)
	}
}
