package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// The completion menu under the input: while the input is a "/" and a
// partial command name, the matching commands (one line each); while the
// last word is an "@" and part of a path, the matching workspace files.
// ↑/↓ choose, Tab completes, Enter runs the chosen command or completes
// the chosen file, Esc hides the menu.

// menuRows is how many entries the menu shows at most.
const menuRows = 8

type menuItem struct{ label, desc string }

// menu is the completion offered now.
type menu struct {
	items []menuItem
	// complete puts entry i in the input (Tab).
	complete func(i int)
	// enter is Enter on entry i.
	enter func(i int) tea.Cmd
}

// activeMenu is the menu for the input as it stands (nil: closed).
func (m *Model) activeMenu() *menu {
	if m.picker != nil || len(m.approvals) > 0 || m.denying {
		return nil
	}
	v := m.input.Value()
	if v == m.menuHidden {
		return nil
	}
	mu := m.commandMenu(v)
	if mu == nil {
		mu = m.mentionMenu(v)
	}
	if mu == nil || len(mu.items) == 0 {
		return nil
	}
	if v != m.menuFor {
		m.menuFor, m.menuAt = v, 0
	}
	m.menuAt = min(m.menuAt, len(mu.items)-1)
	return mu
}

// commandMenu offers the slash commands that match a partial name.
func (m *Model) commandMenu(v string) *menu {
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	cmds := matchCommands(v[1:])
	mu := &menu{items: make([]menuItem, len(cmds))}
	for i, c := range cmds {
		mu.items[i] = menuItem{c.usage(), c.desc}
	}
	// Tab puts the command in the input, followed by a space when it
	// takes an argument; Enter runs it (one typed whole runs as typed).
	mu.complete = func(i int) {
		s := "/" + cmds[i].name
		if cmds[i].args != "" {
			s += " "
		}
		m.input.SetValue(s)
	}
	mu.enter = func(i int) tea.Cmd {
		for _, c := range cmds {
			if "/"+c.name == v {
				return m.submit()
			}
		}
		m.input.SetValue("/" + cmds[i].name)
		return m.submit()
	}
	return mu
}

// menuLines draws the menu.
func (m *Model) menuLines(v *view, mu *menu) []string {
	start := 0
	if m.menuAt >= menuRows {
		start = m.menuAt - menuRows + 1
	}
	var out []string
	for i := start; i < len(mu.items) && i < start+menuRows; i++ {
		it := mu.items[i]
		row := "  " + it.label
		if it.desc != "" {
			row = fmt.Sprintf("  %-16s %s", it.label, it.desc)
		}
		if i == m.menuAt {
			row = v.st.user.Render("› " + row[2:])
		} else {
			row = v.st.dim.Render(row)
		}
		out = append(out, truncate(row, v.width))
	}
	if more := len(mu.items) - len(out); more > 0 {
		out = append(out, v.st.dim.Render(fmt.Sprintf("  … %d more", more)))
	}
	return out
}

// menuKey handles a key while the menu is open; handled is false for
// keys that go on to the input.
func (m *Model) menuKey(s string, mu *menu) (cmd tea.Cmd, handled bool) {
	n := len(mu.items)
	switch s {
	case "up":
		m.menuAt = (m.menuAt - 1 + n) % n
	case "down":
		m.menuAt = (m.menuAt + 1) % n
	case "tab":
		mu.complete(m.menuAt)
	case "esc":
		m.menuHidden = m.input.Value()
	case "enter":
		return mu.enter(m.menuAt), true
	default:
		return nil, false
	}
	return nil, true
}
