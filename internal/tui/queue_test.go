package tui

import (
	"testing"

	"github.com/openseek/openseek/protocol"
)

// Tab during a turn queues; the end of the turn sends the first queued
// message as a prompt (the next one waits for that turn), and an
// interrupted turn puts the queue back into the input instead.
func TestQueueRunsAfterTheTurn(t *testing.T) {
	s := newScripted()
	m := newModel(t, s)
	feed(m, protocol.AgentStep{Step: 1})
	press(m, "one", "tab", "two", "tab")
	if len(m.queued) != 2 || len(s.commands()) != 0 {
		t.Fatalf("queued %q, sent %v", m.queued, s.commands())
	}
	feed(m, protocol.TurnSummary{Outcome: "finished", Steps: 1})
	cmds := s.commands()
	if len(cmds) != 1 || cmds[0].(protocol.PromptCmd).Content.Text() != "one" || len(m.queued) != 1 {
		t.Fatalf("after the turn: sent %v, queued %q", cmds, m.queued)
	}

	feed(m, protocol.AgentStep{Step: 1})
	press(m, "three", "tab")
	press(m, "draft")
	feed(m, protocol.TurnSummary{Outcome: "interrupted"})
	if got := m.input.Value(); got != "two\n\nthree\n\ndraft" || len(m.queued) != 0 || len(s.commands()) != 1 {
		t.Errorf("after an interrupt: input %q, queued %q, sent %v", got, m.queued, s.commands())
	}
}
