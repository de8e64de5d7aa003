package protocol

import (
	"reflect"
	"testing"
)

func TestContextEventsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		line string
		ev   Event
	}{
		{`{"event":"context_health","used_tokens":41000,"window":128000,"compactions":1,"rereads_avoided":2,"reread_bytes_saved":5120}`,
			ContextHealth{UsedTokens: 41000, Window: 128000, Compactions: 1, RereadsAvoided: 2, RereadBytesSaved: 5120}},
		{`{"event":"compaction_report","trigger":"auto","from_sequence":1,"to_sequence":42,"turns":3,"files":["a.go","b/c.go"],"tokens_before":90000,"tokens_after":4000,"hook_replaced":true}`,
			CompactionReport{Trigger: "auto", FromSequence: 1, ToSequence: 42, Turns: 3, Files: []string{"a.go", "b/c.go"}, TokensBefore: 90000, TokensAfter: 4000, HookReplaced: true}},
		{`{"event":"compaction_report","trigger":"manual","from_sequence":1,"to_sequence":2,"turns":1,"files":[],"tokens_before":10,"tokens_after":5,"hook_replaced":false}`,
			CompactionReport{Trigger: "manual", FromSequence: 1, ToSequence: 2, Turns: 1, Files: []string{}, TokensBefore: 10, TokensAfter: 5}},
	} {
		if got := string(Emit(tc.ev)); got != tc.line {
			t.Errorf("Emit(%#v)\n got %s\nwant %s", tc.ev, got, tc.line)
		}
		got, ok := ParseEvent([]byte(tc.line))
		if !ok || !reflect.DeepEqual(got, tc.ev) {
			t.Errorf("ParseEvent(%s) = %#v, %v", tc.line, got, ok)
		}
	}
	if _, ok := ParseEvent([]byte(`{"event":"context_health","used_tokens":1}`)); ok {
		t.Error("context_health without window parsed")
	}
}
