package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/openseek/openseek/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeRunner answers "did: <task>" in session "s1" for new sessions and
// keeps the given id otherwise; a task "fail" fails after creating "s9".
type fakeRunner struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeRunner) Run(ctx context.Context, task, sessionID string) (Answer, error) {
	f.mu.Lock()
	f.calls = append(f.calls, sessionID+"|"+task)
	f.mu.Unlock()
	if task == "fail" {
		return Answer{SessionID: "s9", Warnings: []string{"model request failed (HTTP 503); retry 1 of 1"}}, errors.New("model unavailable")
	}
	if sessionID == "" {
		sessionID = "s1"
	}
	return Answer{Answer: "did: " + task, SessionID: sessionID}, nil
}

// connect serves r over a pair of pipes and returns a client session; the
// cleanup closes the client and waits for Serve to return nil.
func connect(t *testing.T, r Runner) *sdk.ClientSession {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, r, sr, sw)
		sw.Close()
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve returned %v after the client hung up, want nil", err)
		}
	})
	return cs
}

func TestServeTools(t *testing.T) {
	cs := connect(t, &fakeRunner{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		schema, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(string(schema), `"task"`) {
			t.Errorf("tool %s schema %s lacks task", tl.Name, schema)
		}
	}
	if got := strings.Join(names, ","); got != "continue,run" {
		t.Errorf("tools = %s, want continue,run", got)
	}
}

func TestServeCalls(t *testing.T) {
	runner := &fakeRunner{}
	cs := connect(t, runner)
	tests := []struct {
		name      string
		tool      string
		args      map[string]any
		wantError bool
		want      Answer
		wantText  string
	}{
		{name: "run new session", tool: "run", args: map[string]any{"task": "fix it"}, want: Answer{Answer: "did: fix it", SessionID: "s1"}},
		{name: "continue keeps session", tool: "continue", args: map[string]any{"session_id": "s7", "task": "and test"}, want: Answer{Answer: "did: and test", SessionID: "s7"}},
		{name: "runner error names session", tool: "run", args: map[string]any{"task": "fail"}, wantError: true, want: Answer{SessionID: "s9", Warnings: []string{"model request failed (HTTP 503); retry 1 of 1"}},
			wantText: "error: model unavailable (session_id s9)\nwarning: model request failed (HTTP 503); retry 1 of 1"},
		{name: "empty task", tool: "run", args: map[string]any{"task": " "}, wantError: true, wantText: "error: run requires task"},
		{name: "continue without session", tool: "continue", args: map[string]any{"session_id": "", "task": "x"}, wantError: true, wantText: "error: continue requires session_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.wantError {
				t.Fatalf("IsError = %v, want %v (%v)", res.IsError, tc.wantError, text(res))
			}
			if tc.wantText != "" && !strings.HasPrefix(text(res), tc.wantText) {
				t.Errorf("text = %q, want prefix %q", text(res), tc.wantText)
			}
			if reflect.DeepEqual(tc.want, Answer{}) {
				return
			}
			var got Answer
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &got); err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("structured = %s, want %+v", b, tc.want)
			}
			if !tc.wantError {
				// The text content mirrors the structured answer.
				var fromText Answer
				if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil || !reflect.DeepEqual(fromText, tc.want) {
					t.Errorf("text = %q, want JSON of %+v", text(res), tc.want)
				}
			}
		})
	}
	want := "|fix it,s7|and test,|fail"
	if got := strings.Join(runner.calls, ","); got != want {
		t.Errorf("runner calls = %s, want %s", got, want)
	}
}

func TestServeMissingArgument(t *testing.T) {
	cs := connect(t, &fakeRunner{})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "continue", Arguments: map[string]any{"task": "x"}})
	if err == nil && !res.IsError {
		t.Fatalf("continue without session_id succeeded: %v", text(res))
	}
}

func TestServeStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	sr, cw := io.Pipe()
	defer cw.Close()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, &fakeRunner{}, sr, io.Discard) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Serve = %v, want context.Canceled", err)
	}
}

func text(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		} else {
			fmt.Fprintf(&b, "[%T]", c)
		}
	}
	return b.String()
}

// A turn's warnings, compaction reports and last context health become
// the answer's notes, in the words every face uses.
func TestAnswerNote(t *testing.T) {
	var a Answer
	for _, e := range []protocol.Event{
		protocol.AssistantDelta{Content: "hi"},
		protocol.BackgroundNotice{Content: "[network] example.com:443 refused: not listed"},
		protocol.ContextHealth{UsedTokens: 90000, Window: 128000},
		protocol.CompactionReport{Trigger: "auto", FromSequence: 1, ToSequence: 9, Turns: 1, TokensBefore: 90000, TokensAfter: 3000},
		protocol.ContextHealth{UsedTokens: 3000, Window: 128000, Compactions: 1},
		protocol.UnverifiedClaim{Message: "The answer says the tests pass, but no test ran in this session."},
	} {
		a.Note(e)
	}
	want := Answer{
		Warnings:    []string{"[network] example.com:443 refused: not listed", "The answer says the tests pass, but no test ran in this session."},
		Compactions: []string{"compacted events 1..9 (auto, 1 turn): context 90k → 3k tokens"},
		Context:     "context 3k/128k · 1 compaction",
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("notes %+v\nwant  %+v", a, want)
	}
}
