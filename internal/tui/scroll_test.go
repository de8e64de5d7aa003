package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/protocol"
)

// A view scrolled up stays where it is while the turn streams below it:
// new answer lines and tool cards do not move what is on screen.
func TestScrolledViewStaysAnchored(t *testing.T) {
	b := newScripted()
	m := newModel(t, b)
	for i := range 30 {
		feed(m, protocol.AssistantMessage{Content: fmt.Sprintf("answer paragraph %d", i)}, protocol.TurnSummary{Outcome: "finished"})
	}
	press(m, "go on", "enter")
	feed(m, protocol.AssistantDelta{Content: "streaming starts\n\n"})
	m.Update(tea.KeyPressMsg{Code: tea.KeyPgUp})
	transcript := func() string {
		lines := strings.Split(screen(m), "\n")
		return strings.Join(lines[1:len(lines)-4], "\n") // the "↑ more" line and the input and status below
	}
	before := transcript()
	if !strings.Contains(before, "answer paragraph") {
		t.Fatalf("the scrolled view shows no history:\n%s", screen(m))
	}
	for i := range 5 {
		feed(m, protocol.AssistantDelta{Content: fmt.Sprintf("new line %d\n\n", i)})
	}
	feed(m, protocol.ToolStarted{ToolCallID: "c1", ToolName: "shell", Arguments: `{"cmd":"ls"}`},
		protocol.ToolResult{ToolCallID: "c1", ToolName: "shell", Content: "a\nb\nc"})
	if after := transcript(); after != before {
		t.Errorf("the scrolled view moved while the turn streamed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// Back at the bottom, the view follows the stream again.
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnd, Mod: tea.ModCtrl})
	feed(m, protocol.AssistantDelta{Content: "the latest line"})
	if s := screen(m); !strings.Contains(s, "the latest line") {
		t.Errorf("the view does not follow the stream at the bottom:\n%s", s)
	}
}
