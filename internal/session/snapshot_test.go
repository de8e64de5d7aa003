package session

import (
	"reflect"
	"strings"
	"testing"

	"github.com/openseek/openseek/protocol"
)

func TestSnapshot(t *testing.T) {
	s := &Session{ID: "demo", SystemPrompt: "system", Events: []Event{{Sequence: 1, TS: 5, Item: &User{Content: protocol.Text("hello")}}}}
	want := `{"version":1,"id":"demo","system_prompt":"system","events":[{"sequence":1,"ts":5,"item":{"kind":"user","payload":{"content":"hello"}}}]}`
	got := s.MarshalSnapshot()
	if string(got) != want {
		t.Fatalf("MarshalSnapshot = %s", got)
	}
	back, err := ParseSnapshot(got)
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("ParseSnapshot = %+v, %v", back, err)
	}
	if e := (&Session{ID: "e", SystemPrompt: ""}).MarshalSnapshot(); string(e) != `{"version":1,"id":"e","system_prompt":"","events":[]}` {
		t.Fatalf("empty snapshot %s", e)
	}
}

func TestParseSnapshot(t *testing.T) {
	tests := []struct {
		in, err string
		events  int
	}{
		{`{"version":1,"id":"d","system_prompt":"s"}`, "", 0},
		{`{"version":2,"id":"d","system_prompt":"s"}`, "unsupported version 2", 0},
		{`{"version":1,"id":7,"system_prompt":"s"}`, "id must be a string", 0},
		{`{"version":1,"id":"d","system_prompt":"s","events":[{"sequence":2,"ts":0,"item":{"kind":"runtime_notice","payload":{"content":"x"}}}]}`, "sequence mismatch: expected 1, found 2", 0},
	}
	for _, tt := range tests {
		s, err := ParseSnapshot([]byte(tt.in))
		if tt.err == "" {
			if err != nil || len(s.Events) != tt.events {
				t.Errorf("%s: %v", tt.in, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: err = %v, want %q", tt.in, err, tt.err)
		}
	}
}
