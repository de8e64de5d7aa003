package session

import (
	"bytes"
	"testing"
)

// The provider-state extensions round-trip byte for byte and reach the
// projection, so a resumed session sends them back.
func TestAssistantProviderStateRoundTrips(t *testing.T) {
	line := []byte(`{"sequence":1,"ts":5,"item":{"kind":"assistant","payload":{"content":"","tool_calls":[{"id":"c","name":"read","arguments":"{}"}],"reasoning_content":"hm","reasoning_signature":"sig==","reasoning_items":[{"type":"reasoning","encrypted_content":"xyz"}]}}}`)
	ev, err := ParseEvent(line)
	if err != nil {
		t.Fatal(err)
	}
	a := ev.Item.(*Assistant)
	if a.ReasoningSignature != "sig==" || string(a.ReasoningItems) != `[{"type":"reasoning","encrypted_content":"xyz"}]` {
		t.Fatalf("decoded %+v", a)
	}
	if got := MarshalEvent(ev); !bytes.Equal(got, line) {
		t.Errorf("re-encoded\n%s\nwant\n%s", got, line)
	}
	s := &Session{ID: "x", SystemPrompt: "s", Events: []Event{ev}}
	m := s.Messages()[1]
	if m.ReasoningSignature != "sig==" || len(m.ReasoningItems) == 0 {
		t.Errorf("projection lost the provider state: %+v", m)
	}
}

// The model asked and the cost decided when a response arrived round-trip
// byte for byte; Cost sums them and is unknown as soon as one priced
// response is missing its cost.
func TestAssistantModelAndCostRoundTrip(t *testing.T) {
	usage := `"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12,"prompt_cache_hit_tokens":4,"prompt_cache_miss_tokens":6}`
	priced := []byte(`{"sequence":1,"ts":5,"item":{"kind":"assistant","payload":{"content":"a","tool_calls":[],` + usage + `,"model":"deepseek/deepseek-v4-flash","cost_usd":0.00125}}}`)
	unpriced := []byte(`{"sequence":2,"ts":6,"item":{"kind":"assistant","payload":{"content":"b","tool_calls":[],` + usage + `,"model":"local-model"}}}`)
	evs := roundTrip(t, priced, unpriced)
	a := evs[0].Item.(*Assistant)
	if a.Model != "deepseek/deepseek-v4-flash" || a.CostUSD == nil || *a.CostUSD != 0.00125 {
		t.Fatalf("decoded %+v", a)
	}
	if usd, known := (&Session{Events: evs[:1]}).Cost(); !known || usd != 0.00125 {
		t.Errorf("one priced response: cost %v known %v", usd, known)
	}
	if _, known := (&Session{Events: evs}).Cost(); known {
		t.Error("a response without a recorded cost must make the session's cost unknown")
	}
	if usd, known := (&Session{}).Cost(); !known || usd != 0 {
		t.Errorf("no responses: cost %v known %v, want $0 known", usd, known)
	}
	if _, err := ParseEvent([]byte(`{"sequence":1,"ts":5,"item":{"kind":"assistant","payload":{"content":"a","tool_calls":[],"cost_usd":"1"}}}`)); err == nil {
		t.Error("a string cost_usd must be an error")
	}
}

// A tool's own call (the script tool's) round-trips byte for byte with
// its parent and arguments, and stays out of the projection: the model
// sees only the call it made and that call's result.
func TestChildToolResultRoundTripsAndIsNotProjected(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"sequence":1,"ts":5,"item":{"kind":"assistant","payload":{"content":"","tool_calls":[{"id":"s","name":"script","arguments":"{}"}]}}}`),
		[]byte(`{"sequence":2,"ts":6,"item":{"kind":"tool_result","payload":{"tool_call_id":"s.1","tool_name":"read","content":"alpha","is_error":false,"parent":"s","arguments":"{\"path\":\"a.txt\"}"}}}`),
		[]byte(`{"sequence":3,"ts":7,"item":{"kind":"tool_result","payload":{"tool_call_id":"s","tool_name":"script","content":"alpha\n","is_error":false}}}`),
	}
	evs := roundTrip(t, lines...)
	if r := evs[1].Item.(*ToolResult); r.Parent != "s" || r.Arguments != `{"path":"a.txt"}` {
		t.Fatalf("decoded %+v", r)
	}
	msgs := (&Session{ID: "x", SystemPrompt: "s", Events: evs}).Messages()
	if len(msgs) != 3 || msgs[2].ToolCallID != "s" || msgs[2].Content.Text() != "alpha\n" {
		t.Errorf("projection %+v, want system, the script call and its result", msgs)
	}
}

// roundTrip parses each line and checks that it encodes back byte for
// byte.
func roundTrip(t *testing.T, lines ...[]byte) []Event {
	t.Helper()
	var evs []Event
	for _, line := range lines {
		ev, err := ParseEvent(line)
		if err != nil {
			t.Fatal(err)
		}
		if got := MarshalEvent(ev); !bytes.Equal(got, line) {
			t.Errorf("re-encoded\n%s\nwant\n%s", got, line)
		}
		evs = append(evs, ev)
	}
	return evs
}
