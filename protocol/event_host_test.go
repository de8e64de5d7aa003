package protocol

import (
	"reflect"
	"testing"
)

func TestHostEventsRoundTrip(t *testing.T) {
	cost := 0.0125
	diff := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
	for _, tc := range []struct {
		line string
		ev   Event
	}{
		{`{"event":"tool_started","tool_call_id":"call_1","tool_name":"shell","arguments":"{\"command\":\"ls\"}"}`,
			ToolStarted{ToolCallID: "call_1", ToolName: "shell", Arguments: `{"command":"ls"}`}},
		{`{"event":"tool_started","tool_call_id":"s.1","tool_name":"read","arguments":"{\"path\":\"a\"}","parent":"s"}`,
			ToolStarted{ToolCallID: "s.1", ToolName: "read", Arguments: `{"path":"a"}`, Parent: "s"}},
		{`{"event":"stream_reset","since":3,"resume":4100,"reason":"the client fell behind"}`,
			StreamReset{Since: 3, Resume: 4100, Reason: "the client fell behind"}},
		{`{"event":"turn_summary","session":"s","outcome":"finished","duration_ms":1200,"steps":3,"usage":{"prompt_tokens":11,"completion_tokens":22,"total_tokens":33,"prompt_cache_hit_tokens":4,"prompt_cache_miss_tokens":7},"cost_usd":0.0125}`,
			TurnSummary{Session: "s", Outcome: "finished", DurationMs: 1200, Steps: 3,
				Usage: Usage{PromptTokens: 11, CompletionTokens: 22, TotalTokens: 33, PromptCacheHitTokens: 4, PromptCacheMissTokens: 7}, CostUSD: &cost}},
		{`{"event":"turn_summary","session":"s","outcome":"aborted","duration_ms":0,"steps":0,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":0},"cost_usd":null}`,
			TurnSummary{Session: "s", Outcome: "aborted"}},
		{`{"event":"tool_result","tool_call_id":"c","tool_name":"edit","is_error":false,"content":"ok","brief":null,"diff":"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}`,
			ToolResult{ToolCallID: "c", ToolName: "edit", Content: "ok", Diff: &diff}},
	} {
		if got := string(Emit(tc.ev)); got != tc.line {
			t.Errorf("Emit(%#v)\n got %s\nwant %s", tc.ev, got, tc.line)
		}
		got, ok := ParseEvent([]byte(tc.line))
		if !ok || !reflect.DeepEqual(got, tc.ev) {
			t.Errorf("ParseEvent(%s) = %#v, %v", tc.line, got, ok)
		}
	}
	// A missing required key is not an event.
	if _, ok := ParseEvent([]byte(`{"event":"stream_reset","since":3}`)); ok {
		t.Error("stream_reset without resume parsed")
	}
}
