package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/server/mcpserver"
)

// noticeTurn is a workspace and a scripted model whose one turn makes
// every kind of notice: a sandboxed command's connection the network
// allowlist refuses, a read that fills the context (9k window) so the
// turn compacts, and an answer that claims the tests pass with no test
// run. It returns the workspace, the home and the global flags.
func noticeTurn(t *testing.T) (ws, home string, args []string) {
	ws, home = t.TempDir(), t.TempDir()
	var big strings.Builder
	for i := range 700 {
		fmt.Fprintf(&big, "line %d of the big file\n", i)
	}
	// (ignored: the snapshot before the turn would store the binary)
	writeTree(t, ws, map[string]string{".git/config": "[core]\n", ".gitignore": "/openseek\n", "big.txt": big.String()})
	// An allowlist makes the proxy run; what it does not list is refused.
	writeTree(t, home, map[string]string{".openseek/config.toml": "[sandbox]\nnetwork = [\"localhost:1\"]\n"})
	// The command's /tmp is private, and this test binary (the openseek
	// under test) lives there: put it in the workspace.
	bin := filepath.Join(ws, "openseek")
	linkOrCopy(t, os.Args[0], bin)
	srv := llmtest.NewServer(t,
		llmtest.Reply{Calls: []llmtest.Call{
			{ID: "net", Name: "shell", Args: `{"cmd":` + quoteJSON(bin+" proxy-connect example.invalid 22 </dev/null") + `}`},
			{ID: "r1", Name: "read", Args: `{"path":"big.txt","max_output_chars":50000}`},
		}},
		llmtest.Reply{Summary: true, Text: "The user asked about big.txt, which was read in full."},
		llmtest.Text("big.txt has 700 lines. All tests pass."),
	)
	return ws, home, append(modelArgs(srv), "--context-window", "9000")
}

// Every notice of a turn reaches the person at run's text mode, on
// stderr: the refused connection and the compaction as "»" lines, the
// unverified claim as a warning, the context's health on the closing
// line. Default flags: the sandbox is on.
func TestTextModeShowsEveryNotice(t *testing.T) {
	t.Parallel()
	ws, home, args := noticeTurn(t)
	r := openseek(t, ws, "", []string{"HOME=" + home}, append(args, "run", "--format", "text", "how long is big.txt?")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"» [network] example.invalid:22 refused: ",
		"» compacted events 1..",
		"warning: The answer says the tests pass, but no test ran in this session.",
		"/9k · 1 compaction\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// `mcp serve` gives the calling agent the same notices beside the answer:
// warnings (the connection, the claim), what the compaction summarised,
// and the context's health.
func TestMCPServeReportsEveryNotice(t *testing.T) {
	t.Parallel()
	ws, home, args := noticeTurn(t)
	cmd := exec.Command(os.Args[0], append(args, "--dir", ws, "mcp", "serve")...)
	cmd.Env = append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + home, "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1", "GORACE=atexit_sleep_ms=0"}, startPathEnv()...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "notices", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run", Arguments: map[string]any{"task": "how long is big.txt?"}})
	if err != nil || res.IsError {
		t.Fatalf("run: %v %+v", err, res)
	}
	var got mcpserver.Answer
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	warned := strings.Join(got.Warnings, "\n")
	if !strings.Contains(warned, "[network] example.invalid:22 refused: ") || !strings.Contains(warned, "The answer says the tests pass, but no test ran in this session.") {
		t.Errorf("warnings %q", got.Warnings)
	}
	if len(got.Compactions) != 1 || !strings.HasPrefix(got.Compactions[0], "compacted events 1..") {
		t.Errorf("compactions %q", got.Compactions)
	}
	if !strings.HasSuffix(got.Context, "/9k · 1 compaction") || got.Answer != "big.txt has 700 lines. All tests pass." {
		t.Errorf("context %q, answer %q", got.Context, got.Answer)
	}
}

// noticeEditor is an ACP client that records the updates and rejects
// every question; it offers no file system or terminal, so the other
// methods (the embedded nil Client) are never called.
type noticeEditor struct {
	acp.Client
	mu      sync.Mutex
	updates []acp.SessionUpdate
	asked   []string
}

func (e *noticeEditor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.updates = append(e.updates, n.Update)
	return nil
}

func (e *noticeEditor) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p.ToolCall.Title != nil {
		e.asked = append(e.asked, *p.ToolCall.Title)
	}
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected("reject_once")}, nil
}

// An editor over ACP (the Go SDK's client driving `openseek acp`) sees
// the same turn as: the context meter (usage_update) after each model
// response, the compaction as a think card completed with what it
// summarised, the refused connection (the editor was asked about it and
// said no) and the unverified claim as quoted paragraphs.
func TestACPShowsEveryNotice(t *testing.T) {
	t.Parallel()
	ws, home, args := noticeTurn(t)
	cmd := exec.Command(os.Args[0], append(args, "acp")...)
	cmd.Dir = ws
	cmd.Env = append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + home, "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1", "GORACE=atexit_sleep_ms=0"}, startPathEnv()...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	ed := &noticeEditor{}
	conn := acp.NewClientSideConnection(ed, in, out)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	s, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: ws, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("how long is big.txt?")}})
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %v %+v", err, resp)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	var text, card string
	meters, lastUsed := 0, 0
	for _, u := range ed.updates {
		switch {
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			text += u.AgentMessageChunk.Content.Text.Text
		case u.UsageUpdate != nil && u.UsageUpdate.Size == 9000:
			meters++
			lastUsed = u.UsageUpdate.Used
		case u.ToolCall != nil && strings.HasPrefix(string(u.ToolCall.ToolCallId), "compaction-"):
			card = u.ToolCall.Title
		case u.ToolCallUpdate != nil && strings.HasPrefix(string(u.ToolCallUpdate.ToolCallId), "compaction-") && *u.ToolCallUpdate.Status == acp.ToolCallStatusCompleted:
			card += " | " + u.ToolCallUpdate.Content[0].Content.Content.Text.Text
		}
	}
	for _, want := range []string{"> [network] example.invalid:22 refused", "> The answer says the tests pass, but no test ran in this session.", "big.txt has 700 lines."} {
		if !strings.Contains(text, want) {
			t.Errorf("the agent's message lacks %q:\n%s", want, text)
		}
	}
	if !strings.HasPrefix(card, "Compact the context: summarise events 1..") || !strings.Contains(card, " | compacted events 1..") {
		t.Errorf("compaction card %q", card)
	}
	if meters < 3 || lastUsed <= 0 {
		t.Errorf("%d usage updates (last used %d); want one per model response and one after the compaction", meters, lastUsed)
	}
	if len(ed.asked) != 1 || !strings.Contains(ed.asked[0], "example.invalid:22") {
		t.Errorf("questions %q", ed.asked)
	}
}

func TestNoticesAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestTextModeShowsEveryNotice|TestMCPServeReportsEveryNotice|TestACPShowsEveryNotice)$")
}
