package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Differ is offered by backends that can say what a session changed (the
// in-process host, from its snapshots): /diff shows it.
type Differ interface {
	// Changes is the unified diff of the workspace's files since before
	// the session's first snapshotted turn (turn; 0 = no snapshot yet).
	Changes(ctx context.Context, id string) (diff string, turn int, err error)
}

type diffMsg struct {
	diff string
	turn int
	err  error
}

// showDiff asks for the session's changes off the UI's goroutine (a
// snapshot of the files now is taken to compare).
func (m *Model) showDiff() tea.Cmd {
	d, ok := m.backend.(Differ)
	if !ok {
		m.note(kindWarn, "", "the attached server's changes are not offered here: `git diff` where it runs shows them")
		return nil
	}
	id, ctx := m.conn.ID(), m.ctx
	m.note(kindNote, "", "comparing the files with the session's first snapshot…")
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		diff, turn, err := d.Changes(ctx, id)
		return diffMsg{diff: diff, turn: turn, err: err}
	}
}

func (m *Model) onDiff(d diffMsg) {
	switch {
	case d.err != nil:
		m.note(kindErr, "✗ ", "/diff failed: "+d.err.Error())
	case d.turn == 0:
		m.note(kindNote, "", "no turn of this session has a snapshot yet (plan mode, or snapshots off): nothing to compare")
	case strings.TrimSpace(d.diff) == "":
		m.note(kindNote, "", fmt.Sprintf("no file changed since before turn %d", d.turn))
	default:
		files := strings.Count("\n"+d.diff, "\ndiff --git ")
		m.tr.add(&toolCard{name: "/diff", brief: fmt.Sprintf("since before turn %d: %d files", d.turn, files),
			done: true, diff: d.diff, unfold: true})
	}
}
