package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/internal/session"
)

// Rewinder is offered by backends that can rewind a session (the
// in-process host): /rewind picks a turn, puts the files back as they were
// before it and hides it, and what followed, from the model.
type Rewinder interface {
	Turns(id string) ([]session.Turn, error)
	Rewind(ctx context.Context, id string, turn int) (engine.Rewound, error)
}

// pickRewind opens the turn picker, the last turn chosen.
func (m *Model) pickRewind() tea.Cmd {
	rw, ok := m.backend.(Rewinder)
	if !ok {
		m.note(kindWarn, "", "rewinding an attached server's session is not offered here: run `openseek rewind` where the server runs")
		return nil
	}
	if m.busy {
		m.note(kindWarn, "", "a turn is running: Esc interrupts it first")
		return nil
	}
	id := m.conn.ID()
	turns, err := rw.Turns(id)
	if err != nil {
		m.note(kindErr, "✗ ", "listing the turns failed: "+err.Error())
		return nil
	}
	if len(turns) == 0 {
		m.note(kindNote, "", "no turns to rewind yet")
		return nil
	}
	rows := make([]string, len(turns))
	for i, t := range turns {
		snap := ""
		if t.Snapshot == "" {
			snap = "  (no snapshot: cannot rewind)"
		}
		rows[i] = fmt.Sprintf("%3d  %s%s", t.Number, oneLine(t.Prompt), snap)
	}
	m.picker = &picker{title: "Rewind to before a turn (files and conversation)", rows: rows, at: len(rows) - 1,
		pick: func(i int) tea.Cmd {
			if turns[i].Snapshot == "" {
				m.note(kindWarn, "", fmt.Sprintf("turn %d has no snapshot (plan mode, or snapshots off): it cannot be rewound", turns[i].Number))
				return nil
			}
			return m.rewind(rw, id, turns[i].Number)
		}}
	return nil
}

// rewind closes the session (the rewind holds its log), rewinds it and
// opens it again: the transcript is the conversation as it stood then.
func (m *Model) rewind(rw Rewinder, id string, turn int) tea.Cmd {
	old, b, ctx := m.conn, m.backend, m.ctx
	req := OpenRequest{ID: id, Model: m.opts.Open.Model, Approval: m.mode}
	m.gen++ // drop the old stream's batches
	return func() tea.Msg {
		_ = old.Close()
		r, rerr := rw.Rewind(ctx, id, turn)
		c, err := b.Open(ctx, req)
		if err == nil && rerr != nil {
			err = fmt.Errorf("rewind to before turn %d: %w", turn, rerr)
		}
		what := fmt.Sprintf("rewound to before turn %d: %s put back; the model no longer sees turn %d and later (undo the files: openseek rewind --snapshot %s)",
			turn, render.Count(len(r.Files.Changes), "file"), turn, r.Files.Saved)
		return opened{conn: c, err: err, what: what}
	}
}
