package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/snapshot"
	"github.com/openseek/openseek/protocol"
)

// rewinding is the scripted backend that can rewind: it records the
// rewind and serves the log as it then stands.
type rewinding struct {
	*scripted
	rewound []int
}

func (r *rewinding) Turns(string) ([]session.Turn, error) {
	return []session.Turn{
		{Number: 1, Sequence: 1, Prompt: "make a.txt", Snapshot: "aaa"},
		{Number: 2, Sequence: 4, Prompt: "make b.txt", Snapshot: "bbb"},
		{Number: 3, Sequence: 7, Prompt: "plan only"},
	}, nil
}

func (r *rewinding) Rewind(_ context.Context, id string, turn int) (engine.Rewound, error) {
	r.rewound = append(r.rewound, turn)
	r.hist = &session.Session{ID: id, Events: []session.Event{
		{Sequence: 1, Item: &session.User{Content: protocol.Text("make a.txt")}},
		{Sequence: 2, Item: &session.Assistant{Content: "made a.txt"}},
		{Sequence: 3, Item: &session.Terminal{Kind: session.Finished}},
		{Sequence: 4, Item: &session.User{Content: protocol.Text("make b.txt")}},
		{Sequence: 5, Item: &session.Assistant{Content: "made b.txt"}},
		{Sequence: 6, Item: &session.Terminal{Kind: session.Finished}},
		{Sequence: 7, Item: &session.Notice{Content: session.RewindMarker(4)}},
	}}
	return engine.Rewound{SessionID: id, Files: snapshot.Restored{Saved: "ccc", Changes: []snapshot.Change{{Action: "removed", Path: "b.txt"}}}}, nil
}

// /rewind lists the turns (the last chosen); picking one rewinds the
// session and shows the conversation as it stood before that turn.
func TestRewindPicker(t *testing.T) {
	s := newScripted()
	m := newModel(t, s)
	rw := &rewinding{scripted: s}
	m.backend = rw
	press(m, "/rewind", "enter")
	golden.RequireEqual(t, screen(m))
	press(m, "enter") // turn 3 has no snapshot
	if !strings.Contains(screen(m), "turn 3 has no snapshot") || len(rw.rewound) != 0 {
		t.Fatalf("a turn without a snapshot was not refused:\n%s", screen(m))
	}
	press(m, "/rewind", "enter", "up")
	_, cmd := m.Update(keyMsg("enter"))
	if cmd == nil {
		t.Fatal("picking a turn did nothing")
	}
	m.Update(cmd())
	if len(rw.rewound) != 1 || rw.rewound[0] != 2 {
		t.Fatalf("rewound %v, want turn 2", rw.rewound)
	}
	sc := screen(m)
	if !strings.Contains(sc, "rewound to before turn 2: 1 file put back") || !strings.Contains(sc, "made a.txt") {
		t.Errorf("the rewind is not shown:\n%s", sc)
	}
	if strings.Contains(sc, "make b.txt") {
		t.Errorf("the rewound turn is still shown:\n%s", sc)
	}
}
