package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// The status line shows the context's health once the engine reports it,
// and a compaction's report is a notice in the transcript.
func TestStatusLineShowsContextHealthAndCompaction(t *testing.T) {
	b := newScripted()
	b.hist = &session.Session{ID: "s1"}
	m := newModel(t, b)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 24})
	m.handle(protocol.UsageEvent{Usage: protocol.Usage{PromptTokens: 41000, CompletionTokens: 200}})
	if got := screen(m); !strings.Contains(got, "ctx 41%") {
		t.Fatalf("before any context_health the status line has the percentage:\n%s", got)
	}
	m.handle(protocol.CompactionReport{Trigger: "auto", FromSequence: 1, ToSequence: 9, Turns: 2, Files: []string{"a.go"}, TokensBefore: 41000, TokensAfter: 3000})
	m.handle(protocol.ContextHealth{UsedTokens: 3000, Window: 100000, Compactions: 1})
	got := screen(m)
	for _, want := range []string{"context 3k/100k · 1 compaction", "compacted events 1..9 (auto, 2 turns): context 41k → 3k tokens; files: a.go"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q:\n%s", want, got)
		}
	}
}
