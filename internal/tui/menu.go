package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// The command menu: while the input is a "/" and a partial name, the
// matching commands show above it with one line each; ↑/↓ choose, Tab
// completes, Enter runs the chosen one, Esc hides the menu.

// menuRows is how many commands the menu shows at most.
const menuRows = 8

// menuItems are the commands the menu offers now (none when it is closed).
func (m *Model) menuItems() []slashCommand {
	if m.picker != nil || (len(m.approvals) > 0 && !m.denying) || m.denying {
		return nil
	}
	v := m.input.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") || v == m.menuHidden {
		return nil
	}
	items := matchCommands(v[1:])
	if v != m.menuFor {
		m.menuFor, m.menuAt = v, 0
	}
	m.menuAt = min(m.menuAt, max(len(items)-1, 0))
	return items
}

// menuLines draws the menu.
func (m *Model) menuLines(v *view, items []slashCommand) []string {
	start := 0
	if m.menuAt >= menuRows {
		start = m.menuAt - menuRows + 1
	}
	var out []string
	for i := start; i < len(items) && i < start+menuRows; i++ {
		c := items[i]
		row := fmt.Sprintf("  %-16s %s", c.usage(), c.desc)
		if i == m.menuAt {
			row = v.st.user.Render("› " + row[2:])
		} else {
			row = v.st.dim.Render(row)
		}
		out = append(out, truncate(row, v.width))
	}
	if more := len(items) - len(out); more > 0 {
		out = append(out, v.st.dim.Render(fmt.Sprintf("  … %d more", more)))
	}
	return out
}

// menuKey handles a key while the menu is open; handled is false for
// keys that go on to the input.
func (m *Model) menuKey(s string, items []slashCommand) (cmd tea.Cmd, handled bool) {
	switch s {
	case "up":
		m.menuAt = (m.menuAt - 1 + len(items)) % len(items)
	case "down":
		m.menuAt = (m.menuAt + 1) % len(items)
	case "tab":
		m.complete(items[m.menuAt])
	case "esc":
		m.menuHidden = m.input.Value()
	case "enter":
		typed := strings.TrimPrefix(m.input.Value(), "/")
		for _, c := range items {
			if c.name == typed {
				return m.submit(), true
			}
		}
		m.input.SetValue("/" + items[m.menuAt].name)
		return m.submit(), true
	default:
		return nil, false
	}
	return nil, true
}

// complete puts the chosen command in the input, followed by a space
// when it takes an argument.
func (m *Model) complete(c slashCommand) {
	v := "/" + c.name
	if c.args != "" {
		v += " "
	}
	m.input.SetValue(v)
}
