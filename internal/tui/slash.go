package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/protocol"
)

// slash runs a slash command.
func (m *Model) slash(line string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "help", "?":
		m.note(kindNote, "", helpText())
	case "quit", "exit":
		m.quit = true
		return tea.Quit
	case "compact":
		if m.apply(protocol.CompactCmd{}) {
			m.note(kindNote, "", "compaction queued")
		}
	case "goal":
		switch arg {
		case "":
			m.note(kindWarn, "", "usage: /goal TEXT sets the goal, /goal clear removes it")
		case "clear":
			m.apply(protocol.GoalCmd{Action: protocol.GoalClear})
		default:
			m.apply(protocol.GoalCmd{Action: protocol.GoalSet, Text: arg})
		}
	case "plan":
		return m.reopen("plan", "", "plan mode: the agent reads and plans, it changes nothing")
	case "auto":
		return m.reopen("auto", "", "auto mode: what the sandbox contains runs unasked; commands that need more wait for your approval")
	case "ask":
		return m.reopen("ask", "", "ask mode: every command that is not read-only waits for your approval")
	case "always":
		return m.reopen("always", "", "always mode: commands run without asking")
	case "model":
		if arg == "" {
			return m.pickModel()
		}
		return m.reopen("", arg, "model "+arg+" from the next turn")
	case "new":
		if m.busy {
			m.note(kindWarn, "", "a turn is running: Esc cancels it first")
			return nil
		}
		return m.open(OpenRequest{Model: m.openModel(), Approval: m.mode}, "new session")
	case "sessions":
		return m.listSessions()
	case "jobs":
		return m.jobs(arg)
	case "network":
		// The engine answers with a notice listing the allowlist.
		m.apply(protocol.NetworkAllowCmd{Host: arg})
		return nil
	case "rewind":
		return m.pickRewind()
	case "diff":
		return m.showDiff()
	default:
		m.note(kindWarn, "", "unknown command /"+name+" — /help lists them")
	}
	return nil
}

// openModel is the model a reopened session keeps.
func (m *Model) openModel() string { return m.opts.Open.Model }

// reopen opens the current session again with another mode or model,
// between turns.
func (m *Model) reopen(mode, model, what string) tea.Cmd {
	if mode != "" && !m.backend.SetsApproval() {
		m.note(kindWarn, "", "the attached server keeps the permission mode it was started with (openseek serve --http --approval …)")
		return nil
	}
	if m.busy {
		m.note(kindWarn, "", "a turn is running: switch after it ends (Esc cancels it)")
		return nil
	}
	if mode != "" {
		m.mode = mode
	}
	if model != "" {
		m.opts.Open.Model = model
	}
	return m.open(OpenRequest{ID: m.conn.ID(), Model: m.opts.Open.Model, Approval: m.mode}, what)
}

type opened struct {
	conn Conn
	err  error
	what string
	keep bool // the same session: keep the transcript
}

// open swaps the session: the old one is closed first, then the new one
// opened (the same id may not be held twice).
func (m *Model) open(req OpenRequest, what string) tea.Cmd {
	old, b, ctx := m.conn, m.backend, m.ctx
	keep := req.ID != "" && req.ID == old.ID()
	m.gen++ // drop the old stream's batches
	return func() tea.Msg {
		_ = old.Close()
		c, err := b.Open(ctx, req)
		if err != nil && keep {
			// Back to the session as it was.
			req.Model, req.Approval = "", ""
			c, _ = b.Open(ctx, OpenRequest{ID: req.ID})
		}
		return opened{conn: c, err: err, what: what, keep: keep}
	}
}

func (m *Model) onOpened(o opened) tea.Cmd {
	if o.conn == nil {
		m.note(kindErr, "✗ ", "could not open the session: "+o.err.Error()+" — /new starts another")
		return nil
	}
	if o.keep {
		m.conn = o.conn
		m.gen++
		m.replaying = true
		m.model, m.stat.window = o.conn.Model(), o.conn.Window()
	} else {
		m.attach(o.conn)
	}
	if o.err != nil {
		m.note(kindErr, "✗ ", o.err.Error())
	} else {
		m.note(kindNote, "", o.what)
	}
	return m.pump()
}

type sessionsMsg struct {
	list []engine.SessionInfo
	err  error
}

func (m *Model) listSessions() tea.Cmd {
	b, ctx := m.backend, m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		l, err := b.Sessions(ctx)
		return sessionsMsg{list: l, err: err}
	}
}

func (m *Model) onSessions(s sessionsMsg) {
	if s.err != nil {
		m.note(kindErr, "✗ ", "listing the sessions failed: "+s.err.Error())
		return
	}
	if len(s.list) == 0 {
		m.note(kindNote, "", "no sessions yet")
		return
	}
	rows := make([]string, len(s.list))
	for i, it := range s.list {
		title := "(untitled)"
		if it.Title != nil {
			title = oneLine(*it.Title)
		}
		when := ""
		if it.UpdatedAtMs != nil {
			when = time.UnixMilli(*it.UpdatedAtMs).Format("2006-01-02 15:04")
		}
		rows[i] = fmt.Sprintf("%s  %s  %s", it.ID, when, title)
	}
	m.picker = &picker{title: "Resume a session", rows: rows, pick: func(i int) tea.Cmd {
		id := s.list[i].ID
		if id == m.conn.ID() {
			return nil
		}
		if m.busy {
			m.note(kindWarn, "", "a turn is running: Esc cancels it first")
			return nil
		}
		return m.open(OpenRequest{ID: id, Model: m.opts.Open.Model, Approval: m.mode}, "resumed "+id)
	}}
}

// jobs lists, shows or stops background jobs.
func (m *Model) jobs(arg string) tea.Cmd {
	verb, id, _ := strings.Cut(arg, " ")
	id = strings.TrimSpace(id)
	switch verb {
	case "":
		m.apply(protocol.JobsSnapshotCmd{RequestID: "tui-jobs"})
	case "stop", "output":
		if id == "" {
			m.note(kindWarn, "", "usage: /jobs "+verb+" JOB_ID (see /jobs)")
			return nil
		}
		if verb == "output" {
			m.wantOutput = id
			m.apply(protocol.JobsSnapshotCmd{RequestID: "tui-jobs-output"})
			return nil
		}
		gen := m.stat.generationOf(id)
		m.apply(protocol.JobStopCmd{RequestID: "tui-stop", Generation: gen, JobID: id})
	default:
		m.note(kindWarn, "", "usage: /jobs, /jobs output ID, /jobs stop ID")
	}
	return nil
}

// showJobs answers /jobs (a list) or /jobs output ID (one job's record).
func (m *Model) showJobs(s protocol.JobsSnapshot) {
	for _, j := range s.Jobs {
		m.stat.gens[j.ID] = j.Generation
	}
	if s.RequestID == "tui-jobs-output" {
		for _, j := range s.Jobs {
			if j.ID == m.wantOutput {
				text := jobOutput(j)
				if jo, ok := m.conn.(JobOutputs); ok {
					if out, err := jo.JobOutput(j.ID); err != nil {
						text += "\n  cannot read its output: " + err.Error()
					} else {
						text += "\n" + out
					}
				}
				m.tr.add(&textBlock{kind: kindNote, text: text})
				return
			}
		}
		m.note(kindWarn, "", "no job "+m.wantOutput+" — /jobs lists them")
		return
	}
	if len(s.Jobs) == 0 {
		m.note(kindNote, "", "no background jobs")
		return
	}
	var b strings.Builder
	b.WriteString("Background jobs (/jobs output ID, /jobs stop ID):")
	for _, j := range s.Jobs {
		fmt.Fprintf(&b, "\n  %s  %-8s %s", j.ID, jobState(j.State), oneLine(j.Command))
	}
	m.note(kindNote, "", b.String())
}

func jobState(s protocol.JobState) string {
	switch {
	case s.Kind == protocol.JobStateExited:
		return fmt.Sprintf("exit %d", s.Code)
	case s.Reason != "":
		return s.Kind + " (" + s.Reason + ")"
	}
	return s.Kind
}
