package session

import (
	"reflect"
	"strings"
	"testing"
)

func TestForkCopiesThePrefixAndLinksItsParent(t *testing.T) {
	st := NewStore(t.TempDir())
	golden := readFile(t, "testdata/session-v1.jsonl")
	writeSession(t, st, "legacy", golden)

	fork, err := st.Fork("legacy", 7, "legacy-fork")
	if err != nil {
		t.Fatal(err)
	}
	if parent, at, ok := fork.ForkedFrom(); !ok || parent != "legacy" || at != 7 {
		t.Errorf("ForkedFrom = %q %d %v, want legacy 7", parent, at, ok)
	}
	loaded, err := st.Load("legacy-fork")
	if err != nil {
		t.Fatal(err)
	}
	if loaded.LastSequence() != 8 {
		t.Fatalf("fork has %d events, want the 7 copied and its marker", loaded.LastSequence())
	}
	// The copied events keep their bytes: sequence, time and payload.
	data := readFile(t, st.Path("legacy-fork"))
	lines := strings.Split(data, "\n")
	want := strings.Split(golden, "\n")
	if lines[0] != strings.Replace(want[0], `"id":"legacy"`, `"id":"legacy-fork"`, 1) {
		t.Errorf("header %s", lines[0])
	}
	for i := 1; i <= 7; i++ {
		if lines[i] != want[i] {
			t.Errorf("line %d changed:\n%s\n%s", i, lines[i], want[i])
		}
	}
	if !strings.Contains(lines[8], `"content":"[fork] parent=legacy sequence=7"`) {
		t.Errorf("marker line %s", lines[8])
	}
	// The model sees the parent's conversation up to the fork point, not
	// the marker.
	parent, _ := st.Load("legacy")
	cut := &Session{ID: "x", SystemPrompt: parent.SystemPrompt, Events: parent.Events[:7]}
	if got, want := loaded.Messages(), cut.Messages(); !reflect.DeepEqual(got, want) {
		t.Errorf("fork projects\n%+v\nwant\n%+v", got, want)
	}
	// The parent is untouched, and a fork resumes like any session.
	if readFile(t, st.Path("legacy")) != golden {
		t.Error("the parent's file changed")
	}
	w, err := st.OpenWriter("legacy-fork", "", "test")
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := w.Append(user("go on")); err != nil || ev.Sequence != 9 {
		t.Errorf("append to fork: %v %d", err, ev.Sequence)
	}
	w.Close()
}

func TestForkRefusals(t *testing.T) {
	st := NewStore(t.TempDir())
	writeSession(t, st, "legacy", readFile(t, "testdata/session-v1.jsonl"))
	for _, tc := range []struct {
		parent, id string
		at         int
		want       string
	}{
		{"legacy", "f", 0, "outside its events 1..18"},
		{"legacy", "f", 19, "outside its events 1..18"},
		{"nosuch", "f", 1, "session nosuch does not exist"},
		{"legacy", "legacy", 3, "session legacy already exists"},
		{"legacy", "a/b", 3, "path separators"},
	} {
		_, err := st.Fork(tc.parent, tc.at, tc.id)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Fork(%s, %d, %s) = %v, want %q", tc.parent, tc.at, tc.id, err, tc.want)
		}
	}
	if st.Exists("f") {
		t.Error("a refused fork left a session behind")
	}
}
