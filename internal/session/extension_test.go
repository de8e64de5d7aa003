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
