package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/protocol"
)

// The build check shows as "checking: <command>" with its elapsed time
// while it runs; its result replaces that line.
func TestRunningCheckIsShownThenReplaced(t *testing.T) {
	const cmd = "go build -o /dev/null ./... && go vet ./..."
	now := epoch
	b := newScripted()
	m := New(context.Background(), b, b, Options{NoColor: true, Approval: "ask", Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	press(m, "fix it", "enter")
	feed(m, protocol.VerifyStarted{Command: cmd, Attempt: 1})
	now = epoch.Add(12 * time.Second)
	if s := screen(m); !strings.Contains(s, "checking: "+cmd+" 12.0s") {
		t.Errorf("the running check is not shown:\n%s", s)
	}
	now = epoch.Add(14 * time.Second)
	feed(m, protocol.VerifyResult{Command: cmd, ExitCode: 1, Attempt: 1, Output: "# hello\n./main.go:4:2: undefined: x\n"})
	s := screen(m)
	if strings.Contains(s, "checking:") {
		t.Errorf("the running line stayed after the result:\n%s", s)
	}
	if !strings.Contains(s, "✗ check failed (exit 1): "+cmd+" 14.0s") || !strings.Contains(s, "│ ./main.go:4:2: undefined: x") {
		t.Errorf("the failed check is not shown with its output:\n%s", s)
	}
	feed(m, protocol.VerifyStarted{Command: cmd, Attempt: 2})
	now = epoch.Add(15 * time.Second)
	feed(m, protocol.VerifyResult{Command: cmd, OK: true, Attempt: 2})
	if s := screen(m); !strings.Contains(s, "✓ check passed: "+cmd+" 1.0s") {
		t.Errorf("the passing check is not shown:\n%s", s)
	}
}
