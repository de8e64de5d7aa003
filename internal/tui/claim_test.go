package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/protocol"
)

// An answer's unbacked claim shows as a warning under the answer, every
// turn it happens (other warnings show once).
func TestUnverifiedClaimShows(t *testing.T) {
	b := newScripted()
	m := New(context.Background(), b, b, Options{NoColor: true, Now: func() time.Time { return epoch }})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
	msg := "The answer says the tests pass, but no test ran in this session."
	for _, prompt := range []string{"fix it", "and the other one"} {
		press(m, prompt, "enter")
		feed(m, protocol.AssistantMessage{Content: "Fixed. All tests pass."},
			protocol.UnverifiedClaim{Session: "s1", Claim: "tests", Quote: "All tests pass", Message: msg},
			protocol.TurnSummary{Session: "s1", Outcome: "finished"})
	}
	if n := strings.Count(m.render(), "⚠ "+msg); n != 2 {
		t.Errorf("the warning shows %d times, want once a turn:\n%s", n, m.render())
	}
}
