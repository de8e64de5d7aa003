package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func TestContextAndCompactionText(t *testing.T) {
	for _, tc := range []struct {
		ev   protocol.ContextHealth
		want string
	}{
		{protocol.ContextHealth{UsedTokens: 41_200, Window: 128_000, Compactions: 1}, "context 41k/128k · 1 compaction"},
		{protocol.ContextHealth{UsedTokens: 950, Window: 1_000_000}, "context 950/1.0M · 0 compactions"},
		{protocol.ContextHealth{UsedTokens: 3000, Window: 64_000, Compactions: 2, RereadsAvoided: 3, RereadBytesSaved: 5120},
			"context 3k/64k · 2 compactions · 3 re-reads avoided (5.0 KB)"},
	} {
		if got := ContextLine(tc.ev); got != tc.want {
			t.Errorf("ContextLine(%+v) = %q, want %q", tc.ev, got, tc.want)
		}
	}
	rep := protocol.CompactionReport{Trigger: "auto", FromSequence: 1, ToSequence: 40, Turns: 2,
		Files: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}, TokensBefore: 90_000, TokensAfter: 4_000, HookReplaced: true}
	want := "compacted events 1..40 (auto, 2 turns): context 90k → 4k tokens; files: a, b, c, d, e, f, g, h and 1 more; summary from a PostCompact hook"
	if got := CompactionText(rep); got != want {
		t.Errorf("CompactionText = %q\nwant %q", got, want)
	}

	// The text face shows the report as a notice and the latest health
	// on the turn's closing line.
	var out, info bytes.Buffer
	r := NewText(&out, &info, Options{})
	r.Emit(protocol.ContextHealth{UsedTokens: 10, Window: 100})
	r.Emit(rep)
	r.Emit(protocol.ContextHealth{UsedTokens: 4000, Window: 128_000, Compactions: 1})
	r.Emit(protocol.TurnSummary{Outcome: "finished", Steps: 1})
	got := info.String()
	if !strings.Contains(got, "» "+want+"\n") || !strings.HasSuffix(got, " · context 4k/128k · 1 compaction\n") {
		t.Errorf("info:\n%s", got)
	}
}

// A session's transcript shows what its compactions summarised (the
// compaction marker), while other bookkeeping markers stay hidden.
func TestTranscriptShowsCompactionNotes(t *testing.T) {
	note := session.CompactionNotice("auto", 1, 4, 1, []string{"big.txt"}, 8000, 900, false)
	s := &session.Session{ID: "s", Events: []session.Event{
		{Sequence: 1, Item: &session.User{Content: protocol.Text("hi")}},
		{Sequence: 2, Item: &session.Notice{Content: session.SnapshotMarkerFor("3f2a9c1d0e", 1)}},
		{Sequence: 5, Item: &session.Summary{Content: "the user said hi", From: 1, To: 4}},
		{Sequence: 6, Item: &session.Notice{Content: note}},
	}}
	var b bytes.Buffer
	Transcript(&b, s)
	if got := b.String(); !strings.Contains(got, "» [compaction] auto: summarised events 1..4 (1 turn(s)); context about 8000 → 900 tokens; files: big.txt\n") || strings.Contains(got, "[snapshot]") {
		t.Errorf("transcript:\n%s", got)
	}
}
