//go:build !headless

package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/server/acp/acptest"
	"github.com/openseek/openseek/internal/session"
)

// loadClient is an ACP client that records the session updates it gets.
type loadClient struct {
	acptest.NoTerminals
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	changed chan struct{} // a token per update
}

func (c *loadClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
	return nil
}

func (c *loadClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
}
func (c *loadClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound("fs/read_text_file")
}
func (c *loadClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound("fs/write_text_file")
}

// take returns the updates so far and forgets them.
func (c *loadClient) take() []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.updates
	c.updates = nil
	return out
}

// waitFor waits until ok holds for the updates so far.
func (c *loadClient) waitFor(t *testing.T, what string, ok func([]sdk.SessionUpdate) bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		c.mu.Lock()
		done := ok(c.updates)
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-c.changed:
		case <-deadline:
			t.Fatalf("no %s within a minute", what)
		}
	}
}

// session/load of a session whose turn is streaming shows every event of
// it exactly once and in order: the client's view from the replay's first
// user message on holds the log's messages, thoughts and tool calls as
// the session log records them — nothing missed from before the load,
// nothing doubled after it. The default sandbox is on.
func TestACPLoadWhileStreaming(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644)
	long := strings.Repeat("streaming words ", 40) // 640 runes: 320 chunks
	srv := llmtest.NewServer(t,
		llmtest.Text("first answer"),
		llmtest.Reply{Reasoning: "thinking it over", Text: long, ChunkSize: 2, Delay: 10 * time.Millisecond,
			Calls: []llmtest.Call{{ID: "r1", Name: "read", Args: `{"path":"a.txt"}`}}},
		llmtest.Text("second answer"),
	)
	cmd := exec.Command(os.Args[0], append(modelArgs(srv), "acp")...)
	cmd.Dir = ws
	cmd.Env = append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1"}, startPathEnv()...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := false
	t.Cleanup(func() {
		if !exited {
			in.Close()
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	cl := &loadClient{changed: make(chan struct{}, 1)}
	conn := sdk.NewClientSideConnection(cl, in, out)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v (stderr %s)", err, stderr.String())
	}
	id := ns.SessionId
	prompt := func(text string) (sdk.PromptResponse, error) {
		return conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	}
	if _, err := prompt("first question"); err != nil {
		t.Fatal(err)
	}
	cl.take()
	type answer struct {
		resp sdk.PromptResponse
		err  error
	}
	second := make(chan answer, 1)
	go func() {
		resp, err := prompt("second question")
		second <- answer{resp, err}
	}()
	// The load comes while the answer streams: some of it reached the
	// client already, most of it is still to come.
	cl.waitFor(t, "streamed answer", func(us []sdk.SessionUpdate) bool {
		return strings.Count(acptest.Text(us, acptest.Agent), "streaming") >= 2
	})
	if _, err := conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	select {
	case a := <-second:
		t.Fatalf("the turn ended (%v, %v) before the load was answered: the load did not come while it streamed", a.resp, a.err)
	default:
	}
	a := <-second
	if a.err != nil || a.resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("second turn: %v %v", a.resp, a.err)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("openseek acp: %v; stderr %s", err, stderr.String())
	}
	exited = true

	// The loaded view starts with the replay's first user message (the
	// updates before it are the old view's).
	all := cl.take()
	start := -1
	for i, u := range all {
		if u.UserMessageChunk != nil {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("the load replayed no user message: %s", acptest.Kinds(all))
	}
	view := all[start:]
	log, err := session.NewStore(filepath.Join(ws, ".openseek")).Load(string(id))
	if err != nil {
		t.Fatal(err)
	}
	var users, answers, thoughts, calls []string
	for _, ev := range log.Events {
		switch it := ev.Item.(type) {
		case *session.User:
			users = append(users, it.Content.Text())
		case *session.Assistant:
			answers = append(answers, it.Content)
			if it.Reasoning != nil {
				thoughts = append(thoughts, *it.Reasoning)
			}
			for _, c := range it.ToolCalls {
				calls = append(calls, "tool_call:"+c.ID, "done:"+c.ID)
			}
		}
	}
	if got, want := acptest.Text(view, acptest.User), strings.Join(users, ""); got != want {
		t.Errorf("user messages\n got %q\nwant %q", got, want)
	}
	if got, want := acptest.Text(view, acptest.Agent), strings.Join(answers, ""); got != want {
		t.Errorf("answers\n got %q\nwant %q", got, want)
	}
	if got, want := acptest.Text(view, acptest.Thought), strings.Join(thoughts, ""); got != want {
		t.Errorf("thoughts\n got %q\nwant %q", got, want)
	}
	var gotCalls []string
	for _, u := range view {
		if u.ToolCall != nil {
			gotCalls = append(gotCalls, "tool_call:"+string(u.ToolCall.ToolCallId))
		}
		if tu := u.ToolCallUpdate; tu != nil && tu.Status != nil && *tu.Status == sdk.ToolCallStatusCompleted {
			gotCalls = append(gotCalls, "done:"+string(tu.ToolCallId))
		}
	}
	if strings.Join(gotCalls, " ") != strings.Join(calls, " ") {
		t.Errorf("tool calls\n got %v\nwant %v", gotCalls, calls)
	}
	if got, want := acptest.Kinds(view), "user message user thought message tool_call:read update:completed message"; got != want {
		t.Errorf("order\n got %s\nwant %s", got, want)
	}
}
