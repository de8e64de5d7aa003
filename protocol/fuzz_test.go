package protocol

import (
	"bytes"
	"reflect"
	"testing"
)

func FuzzParseEvent(f *testing.F) {
	for _, tc := range referenceEvents(f) {
		f.Add([]byte(tc.line))
	}
	f.Add([]byte(`{"event":"job_changed","kind":"finished","job":` + sampleJobLine + `}`))
	f.Add([]byte(`{"event":"agent_step","step":1.0e0}`))
	f.Add([]byte(`{"event":"steer_applied","content":"\ud800\u00e9"}`))
	f.Add([]byte(`{"event":"fleet_started","runs":3,"task":"port it"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, ok := ParseEvent(line)
		if !ok {
			return
		}
		out := Emit(e)
		again, ok := ParseEvent(out)
		if !ok {
			t.Fatalf("Emit output does not parse:\n in  %q\n out %s", line, out)
		}
		if !reflect.DeepEqual(e, again) {
			t.Fatalf("re-parse differs:\n in  %q\n %#v\n %#v", line, e, again)
		}
		if out2 := Emit(again); !bytes.Equal(out, out2) {
			t.Fatalf("re-emit differs:\n %s\n %s", out, out2)
		}
	})
}

func FuzzParseCommand(f *testing.F) {
	for _, tc := range referenceCommands(f) {
		f.Add([]byte(tc.line))
	}
	f.Add([]byte(`{"command":"prompt","text":"x","images":["data:image/png;base64,` + pngB64 + `"]}`))
	f.Add([]byte(`{"command":"steer","kind":"notice","content":[]}`))
	f.Add([]byte(`{"command":"job_stop","request_id":"r","generation":"..","job_id":"j"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := ParseCommand(line)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("empty error text for %q", line)
			}
			return
		}
		out := EmitCommand(c)
		again, err := ParseCommand(out)
		if err != nil {
			t.Fatalf("EmitCommand output does not parse: %v\n in  %q\n out %s", err, line, out)
		}
		if !reflect.DeepEqual(c, again) {
			t.Fatalf("re-parse differs:\n in  %q\n %#v\n %#v", line, c, again)
		}
	})
}
