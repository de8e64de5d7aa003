package render

import (
	"bytes"
	"strings"
	"testing"

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
