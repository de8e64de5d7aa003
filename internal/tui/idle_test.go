package tui

import (
	"testing"

	"github.com/openseek/openseek/protocol"
)

// The clock ticks only while something on screen moves by itself: an
// idle UI schedules no wake-up (the CPU it costs while idle is nil), a
// running turn does, and the clock stops again once the turn ended.
func TestClockTicksOnlyWhileAnimated(t *testing.T) {
	m := newModel(t, newScripted())
	if _, cmd := m.Update(tickMsg{}); cmd != nil {
		t.Fatalf("an idle UI scheduled another tick")
	}
	feed(m, protocol.AgentStep{Step: 1})
	if !m.ticking {
		t.Fatalf("a running turn did not start the clock")
	}
	if _, cmd := m.Update(tickMsg{}); cmd == nil {
		t.Fatalf("the clock stopped while the turn runs")
	}
	feed(m, protocol.TurnSummary{Outcome: "finished", Steps: 1})
	if _, cmd := m.Update(tickMsg{}); cmd != nil || m.ticking {
		t.Fatalf("the clock runs on after the turn ended")
	}
}
