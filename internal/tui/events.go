package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// warner is a backend's own warning-like event (a lost server).
type warner interface{ Warning() string }

// handle applies one event to the transcript and the status.
func (m *Model) handle(e protocol.Event) {
	now := m.opts.Now()
	switch e := e.(type) {
	case protocol.ReasoningDelta:
		m.busy = true
		if m.reasoning == nil {
			m.reasoning = &reasoningBlock{}
			m.tr.add(m.reasoning)
		}
		m.reasoning.text.WriteString(e.Content)
	case protocol.ReasoningMessage:
		if m.reasoning == nil {
			m.reasoning = &reasoningBlock{}
			m.reasoning.text.WriteString(e.Content)
			m.tr.add(m.reasoning)
		}
	case protocol.AssistantDelta:
		m.busy = true
		m.foldReasoning()
		if m.answer == nil {
			m.answer = &answerBlock{}
			m.tr.add(m.answer)
		}
		m.answer.md.append(e.Content)
	case protocol.AssistantMessage:
		m.foldReasoning()
		if m.answer == nil && strings.TrimSpace(e.Content) != "" {
			m.answer = &answerBlock{}
			m.answer.md.append(e.Content)
			m.tr.add(m.answer)
		}
		if m.answer != nil {
			m.answer.md.finish()
		}
		m.answer = nil
	case protocol.ToolStarted:
		user := strings.HasPrefix(e.ToolCallID, engine.UserShellID)
		m.busy = m.busy || !user // a `!` command is no turn
		m.foldReasoning()
		m.closeAnswer()
		c := &toolCard{id: e.ToolCallID, name: e.ToolName, brief: briefOf(e.Arguments), started: now, child: e.Parent != "", whole: user}
		m.cards[e.ToolCallID] = c
		m.running++
		m.tr.add(c)
	case protocol.ToolResult:
		c, ok := m.cards[e.ToolCallID]
		if !ok {
			c = &toolCard{id: e.ToolCallID, name: e.ToolName}
			m.tr.add(c)
		} else if !c.done {
			m.running--
		}
		if strings.HasPrefix(e.ToolCallID, engine.UserShellID) {
			m.shells = max(m.shells-1, 0)
			c.whole = true
		}
		diff := ""
		if e.Diff != nil {
			diff = *e.Diff
		}
		c.finish(e.IsError, e.Content, diff, e.Brief, now)
	case protocol.VerifyStarted:
		m.verifyStarted(e, now)
	case protocol.VerifyResult:
		m.verifyResult(e, now)
	case protocol.UsageEvent:
		m.stat.addUsage(e.Usage)
	case protocol.ContextHealth:
		m.stat.health = &e
	case protocol.CompactionReport:
		m.note(kindNote, "", render.CompactionText(e))
	case protocol.AgentStep:
		m.busy = true
		m.reasoning = nil
	case protocol.ApprovalRequested:
		if !slices.ContainsFunc(m.approvals, func(a protocol.ApprovalRequested) bool { return a.ID == e.ID }) {
			m.approvals = append(m.approvals, e) // a replayed question is shown once
			m.bell()
		}
	case protocol.ApprovalResolved:
		for i, a := range m.approvals {
			if a.ID == e.ID {
				m.approvals = append(m.approvals[:i], m.approvals[i+1:]...)
				if i == 0 {
					m.denying = false
				}
				break
			}
		}
		m.note(kindNote, "", session.DescribeApproval(e))
	case protocol.SteerApplied:
		text := shownText(contentText(e.Content))
		for i, p := range m.pending {
			if e.SubmissionID != nil && *e.SubmissionID == p.id {
				m.pending = append(m.pending[:i], m.pending[i+1:]...)
				break
			}
		}
		if e.Kind != protocol.SteerNotice {
			m.closeAnswer()
			m.note(kindSteer, "↳ ", text)
		}
	case protocol.SteerDropped:
		m.onSteerDropped(e)
	case protocol.AgentFinished:
		if m.answer == nil && !m.answeredThisTurn() && strings.TrimSpace(e.Answer) != "" {
			a := &answerBlock{}
			a.md.append(e.Answer)
			a.md.finish()
			m.tr.add(a)
		}
		m.closeAnswer()
	case protocol.AgentAborted:
		m.closeAnswer()
		m.note(kindWarn, "■ ", "turn cancelled ("+e.Reason+"); type to start another")
	case protocol.TurnFailed:
		m.closeAnswer()
		m.note(kindErr, "✗ ", "the turn failed: "+e.Error+" — check the model and key (openseek doctor), then send the task again")
	case protocol.MaxStepsExhausted:
		m.closeAnswer()
		m.note(kindWarn, "■ ", "the turn used all its steps (--max-steps); say \"continue\" to go on")
	case protocol.TurnSummary:
		m.busy = false
		m.files = nil // the turn may have added files: list them again at the next @
		m.closeAnswer()
		m.finishCards()
		m.stat.turn(e)
		cost := " · " + tersecost(0, false)
		if e.CostUSD != nil {
			cost = " · " + tersecost(*e.CostUSD, true)
		}
		m.note(kindNote, "", fmt.Sprintf("— %s · %s · %.1fs%s", e.Outcome, render.Count(e.Steps, "step"), float64(e.DurationMs)/1000, cost))
		m.bell()
		if cmd := m.runQueued(e.Outcome == string(session.Interrupted)); cmd != nil {
			m.after = append(m.after, cmd)
		}
	case protocol.JobChanged:
		m.stat.jobs[e.Job.Generation+"/"+e.Job.ID] = !e.Job.State.Terminal()
	case protocol.JobsSnapshot:
		m.showJobs(e)
	case protocol.JobStopResult:
		m.note(kindNote, "", fmt.Sprintf("job %s: %s", e.JobID, strings.ReplaceAll(e.Outcome, "_", " ")))
	case protocol.GoalUpdated:
		if e.Goal == nil {
			m.note(kindNote, "", "goal cleared")
		} else {
			m.note(kindNote, "", "goal: "+*e.Goal)
		}
	case protocol.CompactionStarted, protocol.AutoCompactionStarted:
		m.note(kindNote, "", "compacting the history…")
	case protocol.CompactionFinished, protocol.AutoCompactionFinished:
		m.note(kindNote, "", "history compacted")
	case protocol.CompactionFailed:
		m.note(kindErr, "✗ ", "compaction failed: "+e.Error)
	case protocol.AutoCompactionFailed:
		m.note(kindErr, "✗ ", "automatic compaction failed: "+e.Error)
	case protocol.SessionStarted:
		m.stat.session = e.Session
		m.replaying = false
	case protocol.AgentSetupFailed:
		m.busy = false
		m.note(kindErr, "✗ ", "the agent could not start: "+e.Error)
	}
	if m.replaying {
		return
	}
	if w, ok := protocol.Warning(e); ok {
		switch e.(type) {
		case protocol.StreamRetry, protocol.UnverifiedClaim: // news each time: shown each time
		default:
			if m.warned[w] {
				return
			}
			if m.warned == nil {
				m.warned = map[string]bool{}
			}
			m.warned[w] = true
		}
		m.note(kindWarn, "⚠ ", w)
	} else if w, ok := e.(warner); ok {
		m.note(kindWarn, "⚠ ", w.Warning())
	}
}

// bell rings the terminal, when the user wants it ([tui] bell), for
// what happens live (not a replayed history).
func (m *Model) bell() {
	if m.opts.Bell && !m.replaying {
		m.after = append(m.after, tea.Raw("\a"))
	}
}

func (m *Model) foldReasoning() {
	if m.reasoning != nil {
		m.reasoning.folded = true
	}
}

// closeAnswer ends the streaming answer (a tool call or a steer follows).
func (m *Model) closeAnswer() {
	if m.answer != nil {
		m.answer.md.finish()
		m.answer = nil
	}
	m.foldReasoning()
}

// finishCards stops the spinners of cards whose result never came.
func (m *Model) finishCards() {
	for _, c := range m.cards {
		if !c.done {
			c.finish(true, "(no result: the turn ended)", "", nil, m.opts.Now())
		}
	}
	m.cards, m.running = map[string]*toolCard{}, 0
}

// answeredThisTurn reports whether an answer block follows the last
// user block (agent_finished repeats the streamed answer).
func (m *Model) answeredThisTurn() bool {
	for i := len(m.tr.blocks) - 1; i >= 0; i-- {
		switch b := m.tr.blocks[i].(type) {
		case *answerBlock:
			return true
		case *textBlock:
			if b.kind == kindUser {
				return false
			}
		}
	}
	return false
}

func contentText(c protocol.Content) string {
	var b strings.Builder
	for _, p := range c {
		if p.Type == "text" {
			b.WriteString(p.Text)
		} else {
			b.WriteString("[" + p.Type + "]")
		}
	}
	return b.String()
}

// loadHistory shows a resumed session's log.
func (m *Model) loadHistory(h *session.Session) {
	cards := map[string]*toolCard{}
	hidden := h.Hidden()
	for i, ev := range h.Events {
		if hidden != nil && hidden[i] {
			continue // rewound: the model no longer sees it
		}
		switch it := ev.Item.(type) {
		case *session.User:
			m.note(kindUser, "› ", shownText(contentText(it.Content)))
		case *session.Assistant:
			if it.Usage != nil {
				m.stat.addUsage(*it.Usage)
			}
			if it.Reasoning != nil && strings.TrimSpace(*it.Reasoning) != "" {
				r := &reasoningBlock{folded: true}
				r.text.WriteString(*it.Reasoning)
				m.tr.add(r)
			}
			if strings.TrimSpace(it.Content) != "" {
				a := &answerBlock{}
				a.md.append(it.Content)
				a.md.finish()
				m.tr.add(a)
			}
			for _, c := range it.ToolCalls {
				card := &toolCard{id: c.ID, name: c.Name, brief: briefOf(c.Arguments)}
				cards[c.ID] = card
				m.tr.add(card)
			}
		case *session.ToolResult:
			c, ok := cards[it.ToolCallID]
			if !ok {
				c = &toolCard{id: it.ToolCallID, name: it.ToolName, brief: briefOf(it.Arguments), child: it.Parent != ""}
				m.tr.add(c)
			}
			c.finish(it.IsError, contentText(it.Content), diffOf(it.Data), it.Brief, m.opts.Now())
		case *session.Notice:
			if cmd, out, failed, ok := engine.ParseUserShell(it.Content); ok {
				m.note(kindUser, "› ", "!"+cmd)
				c := &toolCard{name: "shell", brief: oneLine(cmd), whole: true}
				c.finish(failed, out, "", nil, time.Time{})
				m.tr.add(c)
			} else if a, ok := session.ParseApproval(it.Content); ok {
				m.note(kindNote, "", session.DescribeApproval(a))
			} else if !session.IsMarker(it.Content) { // snapshot and rewind bookkeeping stay out
				m.note(kindNote, "", it.Content)
			}
		case *session.Summary:
			m.note(kindNote, "", fmt.Sprintf("history compacted (events %d–%d summarised)", it.From, it.To))
		case *session.Terminal:
			if it.Kind != session.Finished {
				msg := string(it.Kind)
				if it.Message != "" {
					msg += ": " + it.Message
				}
				m.note(kindWarn, "■ ", msg)
			}
		}
	}
	for _, c := range cards {
		if !c.done {
			c.finish(true, "(no result recorded)", "", nil, m.opts.Now())
		}
	}
	if len(h.Events) > 0 {
		m.note(kindNote, "", fmt.Sprintf("resumed session %s (%d events)", h.ID, len(h.Events)))
	}
}

// diffOf reads the unified diff an edit tool left in its result data.
func diffOf(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	var d struct {
		Diff string `json:"diff"`
	}
	if json.Unmarshal(data, &d) != nil {
		return ""
	}
	return d.Diff
}
