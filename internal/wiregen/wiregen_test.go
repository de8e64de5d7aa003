package wiregen

import "testing"

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"ToolCallID": "tool_call_id", "CostUSD": "cost_usd", "OK": "ok", "DurationMs": "duration_ms",
		"RereadBytesSaved": "reread_bytes_saved", "ID": "id", "Step": "step", "HTMLBody": "html_body",
	} {
		if got := Snake(in); got != want {
			t.Errorf("Snake(%s) = %s, want %s", in, got, want)
		}
	}
}
