package tui

import tea "charm.land/bubbletea/v2"

// picker is a list to choose one row from (a session to resume, a model):
// ↑/↓ move, Enter picks, Esc closes.
type picker struct {
	title string
	rows  []string
	at    int
	pick  func(i int) tea.Cmd
}

func (p *picker) lines(v *view, height int) []string {
	out := []string{v.st.title.Render(p.title + " (↑/↓, Enter picks, Esc closes)")}
	start := 0
	if rows := height - 1; p.at >= rows {
		start = p.at - rows + 1
	}
	for i := start; i < len(p.rows) && len(out) < height; i++ {
		row := "  " + p.rows[i]
		if i == p.at {
			row = v.st.user.Render("› " + p.rows[i])
		}
		out = append(out, truncate(row, v.width))
	}
	return out
}

func (m *Model) pickerKey(s string) tea.Cmd {
	p := m.picker
	switch s {
	case "up", "k":
		p.at = max(p.at-1, 0)
	case "down", "j":
		p.at = min(p.at+1, len(p.rows)-1)
	case "esc", "q":
		m.picker = nil
	case "enter":
		m.picker = nil
		return p.pick(p.at)
	}
	return nil
}
