package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func TestTextStreamsTheAnswerAndSummarises(t *testing.T) {
	var out, info bytes.Buffer
	r := NewText(&out, &info, func(u protocol.Usage) (float64, bool) { return 0.0123, true })
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
	} {
		r.Emit(e)
	}
	if out.String() != "All done.\n" {
		t.Errorf("answer %q", out.String())
	}
	for _, want := range []string{"session s1", "✓ read main.go", "✗ shell", "exit 1 boom", "done · 2 steps", "1000 in (90% cache hits), 50 out", "cost $0.0123"} {
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
	Transcript(&b, s, nil)
	got := b.String()
	for _, want := range []string{"session t · 6 events", "▶ user: fix it", "(thinking) check first", `→ shell {"cmd":"go test"}`, "✗ shell: FAIL", "… 2 more lines", "» [plan reminder] keep going", "≡ summary of events 1..4", "■ finished: fixed", "tokens: 10 in (0% cache hits), 2 out"} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
}
