package replay

import (
	"context"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func TestProviderAnswersInOrder(t *testing.T) {
	r := "why"
	s := &session.Session{ID: "x", Events: []session.Event{
		{Sequence: 1, Item: &session.User{Content: protocol.Text("go")}},
		{Sequence: 2, Item: &session.Assistant{Reasoning: &r, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"cmd":"ls"}`}}, Usage: &protocol.Usage{PromptTokens: 7}, Model: "m"}},
		{Sequence: 3, Item: &session.Assistant{Content: "again", IsReplay: true}},
		{Sequence: 4, Item: &session.Assistant{Content: "done"}},
	}}
	p := NewProvider(s)
	var deltas []string
	on := func(d llm.Delta) { deltas = append(deltas, d.Text) }
	first, err := p.Stream(context.Background(), llm.Request{}, on)
	if err != nil || len(first.ToolCalls) != 1 || first.ToolCalls[0].ID != "c1" || first.FinishReason != "tool_calls" || first.Usage.PromptTokens != 7 || *first.Reasoning != "why" {
		t.Fatalf("first: %+v %v", first, err)
	}
	second, err := p.Stream(context.Background(), llm.Request{}, on)
	if err != nil || second.Content != "done" || second.FinishReason != "stop" || p.Unused() != 0 {
		t.Fatalf("second (the checkpoint copy is skipped): %+v %v", second, err)
	}
	if strings.Join(deltas, "|") != "why|done" {
		t.Errorf("deltas %q", deltas)
	}
	if _, err := p.Stream(context.Background(), llm.Request{}, on); err == nil || !strings.Contains(err.Error(), "more than the 2 responses") {
		t.Errorf("past the end: %v", err)
	}
}

func TestNormalise(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/tmp/openseek-replay-123/a.go:3: bad", "/work/ws/a.go:3: bad"},
		{"ok  \tpkg\t0.153s", "ok  \tpkg\t<duration>"},
		{"took 1m2.5s, then 300ms", "took <duration>, then <duration>"},
		{"at 2026-12-01T16:42:12.123Z and 16:42:12", "at <time> and <time>"},
		{"wrote /tmp/go-build42/x.o", "wrote /tmp/<tmp>/x.o"},
		{"<system>job=bg-3 running</system>", "<system>job=bg-<n> running</system>"},
		{"3 files, 10 lines", "3 files, 10 lines"},
	} {
		if got := Normalise(tc.in, "/tmp/openseek-replay-123", "/work/ws"); got != tc.want {
			t.Errorf("Normalise(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
