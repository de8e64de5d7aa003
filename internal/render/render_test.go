package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

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
	for _, want := range []string{"session s1", "✓ read main.go", "✗ shell", "exit 1\n  boom", "done · 2 steps", "1000 in (90% cache hits), 50 out", "cost $0.0123"} {
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
		{Sequence: 3, Item: &session.ToolResult{ToolCallID: "c", ToolName: "shell", Content: protocol.Text("FAIL\n1\n2\n3\n4\n5\n6\n7"), IsError: true}},
		{Sequence: 4, Item: &session.Notice{Content: "[plan reminder] keep going"}},
		{Sequence: 5, Item: &session.Summary{Content: "tests failed", From: 1, To: 4}},
		{Sequence: 6, Item: &session.Terminal{Kind: session.Finished, Message: "fixed"}},
	}}
	var b bytes.Buffer
	Transcript(&b, s)
	got := b.String()
	for _, want := range []string{"session t · 6 events", "▶ user: fix it", "(thinking) check first", `→ shell {"cmd":"go test"}`, "✗ shell: FAIL", "… 2 more lines", "» [plan reminder] keep going", "≡ summary of events 1..4", "■ finished: fixed", "tokens: 10 in (0% cache hits), 2 out · cost unknown"} {
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
