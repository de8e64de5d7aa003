package session

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// FuzzLoad: the reader never panics; whatever loads re-serialises, and the
// re-serialised file loads to an equal session (and encodes to the same
// bytes); every accepted event line is valid JSON.
func FuzzLoad(f *testing.F) {
	golden, err := os.ReadFile(goldenPath)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	f.Add([]byte(hdr + ev1 + ev2 + torn))
	f.Add([]byte(hdr + `{"sequence":1,"ts":0,"item":{"kind":"user","payload":{"content":[{"type":"image","media_type":"image/png","data":"iVBORw0KGgo="},{"type":"text","text":"\u00e9\ud83d\ude00"}]}}}` + "\n"))
	f.Add([]byte(hdr + `{"sequence":1,"ts":1.5e3,"item":{"kind":"terminal","payload":{"kind":"finished","message":"[context ceiling] x","verbatim":true}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Lines accepted by ParseEvent must be valid JSON.
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			if _, err := ParseEvent(line); err == nil && !json.Valid(line) {
				t.Fatalf("accepted invalid JSON: %q", line)
			}
		}
		sess, err := parseFile("s1", data)
		if err != nil {
			return
		}
		enc := encodeFile(sess)
		again, err := parseFile("s1", enc)
		if err != nil {
			t.Fatalf("re-encoded file does not load: %v\n%s", err, enc)
		}
		if again.NeedsTailRepair() {
			t.Fatal("re-encoded file needs tail repair")
		}
		again.tornTail = sess.tornTail
		if !reflect.DeepEqual(sess, again) {
			t.Fatalf("reload differs:\n%#v\n%#v", sess, again)
		}
		if enc2 := encodeFile(again); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable:\n%s\n%s", enc, enc2)
		}
		_ = sess.Messages()
		_, _ = sess.Goal()
		_, _ = sess.CheckpointCut(sess.LastSequence())
		snap, err := ParseSnapshot(sess.MarshalSnapshot())
		if err != nil {
			t.Fatalf("snapshot does not parse: %v", err)
		}
		snap.tornTail = sess.tornTail
		if !reflect.DeepEqual(snap, sess) {
			t.Fatal("snapshot round trip differs")
		}
	})
}
