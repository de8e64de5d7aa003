package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func TestTextStreamsTheAnswerAndSummarises(t *testing.T) {
	var out, info bytes.Buffer
	r := NewText(&out, &info, Options{})
	cost := 0.0123
	brief := "read main.go"
	for _, e := range []protocol.Event{
		protocol.SessionStarted{Session: "s1"},
		protocol.AgentStep{Step: 1},
		protocol.ToolResult{ToolCallID: "a", ToolName: "read", Content: "…", Brief: &brief},
		protocol.ToolResult{ToolCallID: "b", ToolName: "shell", IsError: true, Content: "exit 1\nboom"},
		protocol.ToolStarted{ToolCallID: "s", ToolName: "script", Arguments: "{}"},
		protocol.ToolStarted{ToolCallID: "s.1", ToolName: "grep", Arguments: "{}", Parent: "s"},
		protocol.ToolResult{ToolCallID: "s.1", ToolName: "grep", Content: "x"},
		protocol.ToolResult{ToolCallID: "s", ToolName: "script", Content: "x"},
		protocol.UsageEvent{Usage: protocol.Usage{PromptTokens: 1000, CompletionTokens: 50, PromptCacheHitTokens: 900}},
		protocol.AgentStep{Step: 2},
		protocol.AssistantDelta{Content: "All "},
		protocol.AssistantDelta{Content: "done."},
		protocol.AssistantMessage{Content: "All done."},
		protocol.AgentFinished{Answer: "All done."},
		protocol.TurnSummary{Session: "s1", Outcome: "finished", Steps: 2, DurationMs: 1500,
			Usage: protocol.Usage{PromptTokens: 1000, CompletionTokens: 50, PromptCacheHitTokens: 900}, CostUSD: &cost},
	} {
		r.Emit(e)
	}
	if out.String() != "All done.\n" {
		t.Errorf("answer %q", out.String())
	}
	for _, want := range []string{"session s1", "✓ read main.go", "✗ shell", "exit 1\n  boom", "\n  ↳ ✓ grep\n✓ script\n", "done · 2 steps", "1000 in (90% cache hits), 50 out", "cost $0.0123"} {
		if !strings.Contains(info.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, info.String())
		}
	}
}

func TestTranscript(t *testing.T) {
	reason := "check first"
	s := &session.Session{ID: "t", Events: []session.Event{
		{Sequence: 1, Item: &session.User{Content: protocol.Text("fix it")}},
		{Sequence: 2, Item: &session.Assistant{Reasoning: &reason, ToolCalls: []chat.ToolCall{{ID: "c", Name: "shell", Arguments: `{"cmd":"go test"}`}}, Usage: &protocol.Usage{PromptTokens: 10, CompletionTokens: 2}}},
		{Sequence: 3, Item: &session.ToolResult{ToolCallID: "c.1", ToolName: "read", Content: protocol.Text("alpha"), Parent: "c", Arguments: `{"path":"a.txt"}`}},
		{Sequence: 4, Item: &session.ToolResult{ToolCallID: "c", ToolName: "shell", Content: protocol.Text("FAIL\n1\n2\n3\n4\n5\n6\n7"), IsError: true}},
		{Sequence: 5, Item: &session.Notice{Content: "[plan reminder] keep going"}},
		{Sequence: 6, Item: &session.Summary{Content: "tests failed", From: 1, To: 5}},
		{Sequence: 7, Item: &session.Terminal{Kind: session.Finished, Message: "fixed"}},
	}}
	var b bytes.Buffer
	Transcript(&b, s)
	got := b.String()
	for _, want := range []string{"session t · 7 events", "▶ user: fix it", "(thinking) check first", `→ shell {"cmd":"go test"}`, "✗ shell: FAIL", "… 2 more lines", `  ↳ ← read {"path":"a.txt"}: alpha`, "» [plan reminder] keep going", "≡ summary of events 1..5", "■ finished: fixed", "tokens: 10 in (0% cache hits), 2 out · cost unknown"} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
	// The recorded costs of the session and of its sub-agents add up.
	usd := 0.0025
	s.Events[1].Item.(*session.Assistant).CostUSD = &usd
	child := &session.Session{ID: "t-sr-1", Events: []session.Event{
		{Sequence: 1, Item: &session.Assistant{Usage: &protocol.Usage{PromptTokens: 5}, CostUSD: &usd}},
	}}
	b.Reset()
	Transcript(&b, s, child)
	for _, want := range []string{"sub-agents (1 sessions): tokens: 5 in (0% cache hits), 0 out · cost $0.0025", "tokens: 15 in (0% cache hits), 2 out · cost $0.0050"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, b.String())
		}
	}
}

// Every warning reaches a text user whole; plain output has no ANSI.
func TestTextShowsEveryWarningWhole(t *testing.T) {
	var out, info bytes.Buffer
	r := NewText(&out, &info, Options{})
	long := "the hooks of /w/.openseek/hooks.json are ignored until you trust this workspace: run `openseek trust` in the workspace (or pass --trust-workspace) to let them run"
	for _, e := range []protocol.Event{
		protocol.BackgroundNotice{Content: long},
		protocol.McpConfigUnreadable{Path: "/x/mcp.json", Error: "no such file"},
		protocol.McpConnectFailed{Server: "db", Error: "exec: not found"},
		protocol.McpConfigIgnored{Reason: "untrusted .mcp.json"},
		protocol.ReasoningDelta{Content: "hm"},
		protocol.TurnSummary{Outcome: "finished"},
	} {
		r.Emit(e)
	}
	got := info.String()
	for _, want := range []string{long, "/x/mcp.json could not be read: no such file", "MCP server db could not start: exec: not found", "untrusted .mcp.json", "cost unknown"} {
		if !strings.Contains(got, want) {
			t.Errorf("text output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\x1b[") {
		t.Errorf("ANSI escapes without colour: %q", got)
	}
}

func TestColorAllowed(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		term bool
		env  func(string) string
		want bool
	}{
		{true, env("TERM", "xterm"), true},
		{false, env("TERM", "xterm"), false},
		{true, env("TERM", "dumb"), false},
		{true, env("NO_COLOR", "1", "TERM", "xterm"), false},
	} {
		if got := ColorAllowed(tc.term, tc.env); got != tc.want {
			t.Errorf("ColorAllowed(%v, …) = %v", tc.term, got)
		}
	}
}

// A failed command's output is shown (its last lines).
func TestTextShowsFailedOutput(t *testing.T) {
	var out, info bytes.Buffer
	r := NewText(&out, &info, Options{})
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	r.Emit(protocol.ToolResult{ToolCallID: "a", ToolName: "shell", IsError: true, Content: strings.Join(lines, "\n")})
	if got := info.String(); !strings.Contains(got, "line 29") || !strings.Contains(got, "line 10") || strings.Contains(got, "line 9\n") || !strings.Contains(got, "10 lines before") {
		t.Errorf("failed output:\n%s", got)
	}
}

// The turn's summary line says "1 step", not "1 steps".
func TestSummaryCountsSteps(t *testing.T) {
	for steps, want := range map[int]string{0: "· 0 steps ·", 1: "· 1 step ·", 2: "· 2 steps ·"} {
		var out, info bytes.Buffer
		NewText(&out, &info, Options{}).Emit(protocol.TurnSummary{Outcome: "finished", Steps: steps})
		if !strings.Contains(info.String(), want) {
			t.Errorf("%d steps: %q lacks %q", steps, info.String(), want)
		}
	}
}

// sessions show --format text prints commands as typed: no \u003e.
func TestTranscriptShowsArgumentsWithoutEscapes(t *testing.T) {
	s := &session.Session{ID: "t", Events: []session.Event{
		{Sequence: 1, Item: &session.Assistant{ToolCalls: []chat.ToolCall{{ID: "c", Name: "shell", Arguments: `{"cmd":"echo a \u003e b \u0026\u0026 cat b"}`}}}},
		{Sequence: 2, Item: &session.Assistant{ToolCalls: []chat.ToolCall{{ID: "d", Name: "shell", Arguments: `not json <>`}}}},
	}}
	var b bytes.Buffer
	Transcript(&b, s)
	for _, want := range []string{`→ shell {"cmd":"echo a > b && cat b"}`, `→ shell not json <>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, b.String())
		}
	}
}

// The build check shows as "checking: <command>" while it runs (live on a
// terminal, its elapsed time redrawn), then how it ended.
func TestTextShowsTheRunningCheck(t *testing.T) {
	const cmd = "go build -o /dev/null ./... && go vet ./..."
	var out, info bytes.Buffer
	r := NewText(&out, &info, Options{})
	r.Emit(protocol.VerifyStarted{Command: cmd, Attempt: 1})
	if got := info.String(); got != "checking: "+cmd+"\n" {
		t.Errorf("plain start %q", got)
	}
	r.Emit(protocol.VerifyResult{Command: cmd, ExitCode: 1, Attempt: 1, Output: "# hello\n./main.go:4:2: undefined: x\n"})
	if got := info.String(); !strings.Contains(got, "✗ check failed (exit 1): "+cmd+" (") || !strings.Contains(got, "\n  # hello\n  ./main.go:4:2: undefined: x\n") {
		t.Errorf("plain failure:\n%s", got)
	}

	info.Reset()
	r = NewText(&out, &info, Options{Live: true})
	defer r.Close()
	// The live line is redrawn under the renderer's lock.
	shown := func() string {
		r.mu.Lock()
		defer r.mu.Unlock()
		return info.String()
	}
	r.Emit(protocol.VerifyStarted{Command: cmd, Attempt: 2})
	if got := shown(); got != "\r\x1b[K⋯ checking: "+cmd+" (0s)" {
		t.Errorf("live start %q", got)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(shown(), "⋯ checking: "+cmd+" (1s)") {
		if time.Now().After(deadline) {
			t.Fatalf("the elapsed time was not redrawn: %q", shown())
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.Emit(protocol.VerifyResult{Command: cmd, OK: true, Attempt: 2})
	got := shown()
	if !strings.Contains(got, "\r\x1b[K✓ check passed: "+cmd+" (") || !strings.HasSuffix(got, "s)\n") {
		t.Errorf("live result replaces the line: %q", got)
	}
}

// What people read carries no internals: sessions show leaves out
// snapshot markers and says a shell footer in words; run's text mode does
// the same for a failed command's output.
func TestPlainTextShowsNoInternals(t *testing.T) {
	s := &session.Session{ID: "t", Events: []session.Event{
		{Sequence: 1, Item: &session.User{Content: protocol.Text("go")}},
		{Sequence: 2, Item: &session.Notice{Content: session.SnapshotMarkerFor("0123abcd", 1)}},
		{Sequence: 3, Item: &session.ToolResult{ToolCallID: "c", ToolName: "shell", IsError: true, Content: protocol.Text("boom\n<system>exit=2</system>")}},
	}}
	var b bytes.Buffer
	Transcript(&b, s)
	if got := b.String(); strings.Contains(got, "[snapshot]") || strings.Contains(got, "<system>") || !strings.Contains(got, "boom") || !strings.Contains(got, "(exit 2)") {
		t.Errorf("transcript:\n%s", got)
	}
	var out, info bytes.Buffer
	NewText(&out, &info, Options{}).Emit(protocol.ToolResult{ToolCallID: "c", ToolName: "shell", IsError: true, Content: "boom\n<system>exit=2 truncated=true shown_chars=4 total_chars=9</system>"})
	if got := info.String(); strings.Contains(got, "<system>") || !strings.Contains(got, "(exit 2 · output cut: 4 of 9 characters shown)") {
		t.Errorf("run's text mode: %q", got)
	}
}
