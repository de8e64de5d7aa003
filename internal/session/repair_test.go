package session

import (
	"os"
	"strings"
	"testing"

	"github.com/openseek/openseek/protocol"
)

func TestRepairKeepsTheReadablePrefixAndSetsTheRestAside(t *testing.T) {
	s := NewStore(t.TempDir())
	w, err := s.OpenWriter("r", "sys", "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two", "three"} {
		if _, err := w.Append(&User{Content: protocol.Text(text)}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	orig, _ := os.ReadFile(s.Path("r"))
	lines := strings.SplitAfter(string(orig), "\n")
	// Corrupt the middle event: the log no longer loads.
	lines[2] = "{\"this is\": not json\n"
	bad := strings.Join(lines, "")
	os.WriteFile(s.Path("r"), []byte(bad), 0o600)
	if _, err := s.Load("r"); err == nil {
		t.Fatal("the corrupt session loaded")
	}
	got, err := s.Repair("r")
	if err != nil {
		t.Fatal(err)
	}
	if got.Kept != 1 || got.Aside == "" {
		t.Errorf("Repair = %+v, want 1 event kept and the file set aside", got)
	}
	if aside, _ := os.ReadFile(got.Aside); string(aside) != bad {
		t.Error("the set-aside file is not the original")
	}
	sess, err := s.Load("r")
	if err != nil || len(sess.Events) != 1 {
		t.Fatalf("after repair: %v, %v", sess, err)
	}
	// A session that loads is left alone.
	if again, err := s.Repair("r"); err != nil || again.Aside != "" || again.Kept != 1 {
		t.Errorf("repairing a good session: %+v %v", again, err)
	}
}

func TestRepairRefusesAnUnknownVersion(t *testing.T) {
	s := NewStore(t.TempDir())
	os.MkdirAll(s.Dir("v"), 0o700)
	body := "{\"version\":99}\n"
	os.WriteFile(s.Path("v"), []byte(body), 0o600)
	if _, err := s.Repair("v"); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("Repair of an unknown version: %v", err)
	}
	if b, _ := os.ReadFile(s.Path("v")); string(b) != body {
		t.Error("the file was changed")
	}
}
