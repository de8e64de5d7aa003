package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/openseek/openseek/protocol"
)

// A paste this large is kept aside and shown as one placeholder, so the
// input stays responsive; it is put back when the text is sent.
const (
	pasteChars = 1000
	pasteLines = 10
)

// key handles a key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s != "ctrl+c" {
		m.quitArmed = false
	}
	switch s {
	case "ctrl+c":
		return m.ctrlC()
	case "ctrl+o":
		m.expand = !m.expand
		return nil
	case "pgup":
		if !m.opts.Inline { // inline, the terminal scrolls its own scrollback
			m.offset += max(m.height-6, 1)
		}
		return nil
	case "pgdown":
		m.offset = max(m.offset-max(m.height-6, 1), 0)
		return nil
	case "ctrl+end":
		m.offset = 0
		return nil
	}
	if m.picker != nil {
		return m.pickerKey(s)
	}
	if len(m.approvals) > 0 && !m.denying {
		return m.approvalKey(s)
	}
	if mu := m.activeMenu(); mu != nil {
		if cmd, ok := m.menuKey(s, mu); ok {
			return cmd
		}
	}
	switch s {
	case "esc":
		if m.denying {
			m.denying = false
			return m.answerApproval(false, false, "")
		}
		m.interrupt()
		return nil
	case "enter":
		return m.submit()
	case "tab":
		return m.enqueue()
	case "backspace":
		if m.input.Value() == "" && len(m.queued) > 0 {
			// The last queued message comes back to be edited or dropped.
			last := m.queued[len(m.queued)-1]
			m.queued = m.queued[:len(m.queued)-1]
			m.input.SetValue(last)
			return nil
		}
	case "up":
		if m.input.Line() == 0 && len(m.hist) > 0 && m.histAt > 0 {
			if m.histAt == len(m.hist) {
				m.draft = m.input.Value()
			}
			m.histAt--
			m.input.SetValue(m.hist[m.histAt])
			return nil
		}
	case "down":
		if m.input.Line() == m.input.LineCount()-1 && m.histAt < len(m.hist) {
			m.histAt++
			if m.histAt == len(m.hist) {
				m.input.SetValue(m.draft)
			} else {
				m.input.SetValue(m.hist[m.histAt])
			}
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return tea.Batch(cmd, m.wantFiles())
}

// ctrlC is what people expect of Ctrl-C: it closes a list, interrupts a
// running turn (the UI stays), clears typed text, and quits when pressed
// twice with nothing else to stop.
func (m *Model) ctrlC() tea.Cmd {
	switch {
	case m.picker != nil:
		m.picker = nil
	case m.busy || len(m.approvals) > 0 || m.shells > 0:
		m.interrupt()
	case m.input.Value() != "" && !m.quitArmed:
		m.input.Reset()
	case m.quitArmed:
		m.quit = true
		return tea.Quit
	default:
		m.quitArmed = true
	}
	return nil
}

// interrupt cancels the running turn; its tools stop and the session
// stays open for the next prompt.
func (m *Model) interrupt() {
	if !m.busy && len(m.approvals) == 0 && m.shells == 0 {
		return
	}
	m.denying = false
	if m.apply(protocol.CancelCmd{}) {
		m.note(kindNote, "", "interrupting the turn…")
	}
}

// paste inserts pasted text; a large paste becomes a placeholder.
func (m *Model) paste(text string) tea.Cmd {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if len(text) >= pasteChars || strings.Count(text, "\n") >= pasteLines {
		m.pasteN++
		tag := fmt.Sprintf("[paste #%d: %d lines, %d chars]", m.pasteN, strings.Count(text, "\n")+1, len(text))
		m.pastes[tag] = text
		text = tag
	}
	m.input.InsertString(text)
	return nil
}

// take empties the input into the history and returns its text with
// large pastes put back ("" = nothing typed).
func (m *Model) take() string {
	raw := m.input.Value()
	text := strings.TrimSpace(raw)
	if text == "" {
		return ""
	}
	m.input.Reset()
	if len(m.hist) == 0 || m.hist[len(m.hist)-1] != raw {
		m.hist = append(m.hist, raw)
	}
	m.histAt, m.draft = len(m.hist), ""
	for tag, full := range m.pastes {
		text = strings.ReplaceAll(text, tag, full)
	}
	m.pastes = map[string]string{}
	return strings.TrimSpace(text)
}

// submit sends the input: a deny reason, else what dispatch does.
func (m *Model) submit() tea.Cmd {
	text := m.take()
	if text == "" {
		return nil
	}
	if m.denying {
		m.denying = false
		return m.answerApproval(false, false, text)
	}
	return m.dispatch(text)
}

// enqueue (Tab) keeps the input for after the running turn: it is shown
// as queued and sent when the turn ends. With no turn running it is sent
// now.
func (m *Model) enqueue() tea.Cmd {
	if !m.busy || m.denying {
		return m.submit()
	}
	if text := m.take(); text != "" {
		m.queued = append(m.queued, text)
	}
	return nil
}

// runQueued sends the first queued message once a turn has ended; the
// rest wait for the turns it starts. After an interrupt nothing is sent
// unasked: the queue goes back into the input.
func (m *Model) runQueued(interrupted bool) tea.Cmd {
	if len(m.queued) == 0 {
		return nil
	}
	if interrupted {
		m.input.SetValue(strings.Join(append(m.queued, m.input.Value()), "\n\n"))
		m.queued = nil
		m.note(kindNote, "", "the queued messages are back in the input (the turn was interrupted)")
		return nil
	}
	next := m.queued[0]
	m.queued = m.queued[1:]
	return m.dispatch(next)
}

// dispatch sends a message: a slash command, a `!` command, a steer
// while a turn runs, else a prompt.
func (m *Model) dispatch(text string) tea.Cmd {
	if strings.HasPrefix(text, "/") {
		return m.slash(text)
	}
	m.offset = 0
	if cmd, ok := strings.CutPrefix(text, "!"); ok && strings.TrimSpace(cmd) != "" {
		m.runShell(strings.TrimSpace(cmd))
		return nil
	}
	sent, files := m.withMentions(text)
	if m.busy {
		m.steerN++
		id := fmt.Sprintf("tui-steer-%d", m.steerN)
		if m.apply(protocol.SteerCmd{Kind: protocol.SteerPrompt, Content: protocol.Text(sent), SubmissionID: &id}) {
			m.pending = append(m.pending, pendingSteer{id: id, text: text})
		}
		return nil
	}
	m.closeAnswer()
	m.note(kindUser, "› ", text)
	if len(files) > 0 {
		m.note(kindNote, "", "attached "+strings.Join(files, ", "))
	}
	if m.apply(protocol.PromptCmd{Content: protocol.Text(sent)}) {
		m.busy = true
	}
	return nil
}

// runShell runs a command the user typed after `!` through the session's
// shell tool (policy, approval, sandbox), behind the running turn if
// any; its card shows the output and the model reads it next turn.
func (m *Model) runShell(cmd string) {
	m.closeAnswer()
	m.note(kindUser, "› ", "!"+cmd)
	if m.apply(protocol.ShellCmd{Cmd: cmd}) {
		m.shells++
	}
}

// onSteerDropped: the turn ended before the steer reached it, so it is
// sent as the next prompt instead of being lost.
func (m *Model) onSteerDropped(e protocol.SteerDropped) {
	text := shownText(contentText(e.Content))
	for i, p := range m.pending {
		if e.SubmissionID != nil && *e.SubmissionID == p.id {
			m.pending = append(m.pending[:i], m.pending[i+1:]...)
			m.note(kindUser, "› ", text)
			if m.apply(protocol.PromptCmd{Content: e.Content}) {
				m.busy = true
			}
			return
		}
	}
}

// apply sends a command and shows a refusal.
func (m *Model) apply(cmd protocol.Command) bool {
	if err := m.conn.Apply(m.ctx, cmd); err != nil {
		m.note(kindErr, "✗ ", cmd.CommandName()+" refused: "+err.Error())
		return false
	}
	return true
}

// approvalKey answers the dialog.
func (m *Model) approvalKey(s string) tea.Cmd {
	switch s {
	case "y", "Y", "enter":
		return m.answerApproval(true, false, "")
	case "a", "A":
		return m.answerApproval(true, true, "")
	case "n", "N":
		m.denying = true
		m.input.Reset()
		return nil
	case "esc":
		return m.answerApproval(false, false, "")
	}
	return nil
}

// answerApproval answers the first waiting approval; a deny reason goes
// with the answer, and the model reads it in the refused tool's result.
func (m *Model) answerApproval(allow, remember bool, reason string) tea.Cmd {
	if len(m.approvals) == 0 {
		return nil
	}
	a := m.approvals[0]
	m.approvals = m.approvals[1:]
	m.apply(protocol.ApprovalCmd{ID: a.ID, Allow: allow, Remember: remember, Reason: reason})
	return nil
}

func ansiWrap(s string, width int) string { return ansi.Wrap(s, max(width, 10), "") }
