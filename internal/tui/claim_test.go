package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/protocol"
)

// An answer's unbacked claim shows as a warning under the answer.
func TestUnverifiedClaimShows(t *testing.T) {
	b := newScripted()
	m := New(context.Background(), b, b, Options{NoColor: true, Now: func() time.Time { return epoch }})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
	press(m, "fix it", "enter")
	msg := "The answer says the tests pass, but no test ran in this session."
	feed(m, protocol.AssistantMessage{Content: "Fixed. All tests pass."},
		protocol.UnverifiedClaim{Session: "s1", Claim: "tests", Quote: "All tests pass", Message: msg},
		protocol.TurnSummary{Session: "s1", Outcome: "finished"})
	if out := m.render(); !strings.Contains(out, "⚠ "+msg) {
		t.Errorf("the screen lacks the warning:\n%s", out)
	}
}
