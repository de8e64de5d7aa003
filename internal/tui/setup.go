package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/engine"
)

// SetupRequest is what the first-run setup starts from: the model that
// had no key and the models to choose from.
type SetupRequest struct {
	Missing *config.MissingKeyError
	Models  []engine.ModelInfo
	// Where is the config file the choice is written to (shown).
	Where   string
	NoColor bool
}

// ErrSetupCancelled is RunSetup's error when the user left it.
var ErrSetupCancelled = errors.New("setup cancelled: no key was stored; set one (openseek doctor says how) or run openseek again")

// RunSetup is the first run without a key: a short guided setup that
// picks a model from the catalogue and asks for its provider's key —
// pasted, and shown masked — or for a command that prints it
// (api_key_command). It returns the choice; the caller stores it
// (config.SaveSetup) and starts the session. The key is never printed.
func RunSetup(ctx context.Context, req SetupRequest, in io.Reader, out io.Writer) (config.Setup, error) {
	m := newSetup(req)
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if in != nil {
		opts = append(opts, tea.WithInput(in))
	}
	if out != nil {
		opts = append(opts, tea.WithOutput(out))
	}
	if _, err := tea.NewProgram(m, opts...).Run(); err != nil {
		return config.Setup{}, err
	}
	if !m.done {
		return config.Setup{}, ErrSetupCancelled
	}
	return m.result(), nil
}

type setupModel struct {
	req      SetupRequest
	st       *styles
	filter   string
	at       int // index into shown()
	picked   *engine.ModelInfo
	input    textinput.Model
	command  bool // the input is an api_key_command, not a key
	done     bool
	quitting bool
	width    int
}

func newSetup(req SetupRequest) *setupModel {
	m := &setupModel{req: req, st: newStyles(req.NoColor, true), width: 80}
	for i, mi := range m.shown() {
		if mi.Spec() == req.Missing.Model || mi.Name == req.Missing.Model {
			m.at = i
		}
	}
	m.input = textinput.New()
	m.input.EchoMode = textinput.EchoPassword
	m.input.EchoCharacter = '•'
	m.input.Prompt = "› "
	return m
}

// shown is the models the filter leaves.
func (m *setupModel) shown() []engine.ModelInfo {
	var out []engine.ModelInfo
	for _, mi := range m.req.Models {
		if strings.Contains(mi.Spec(), m.filter) {
			out = append(out, mi)
		}
	}
	return out
}

func (m *setupModel) result() config.Setup {
	s := config.Setup{Provider: m.picked.Provider}
	if m.picked.Spec() != m.req.Missing.Model && m.picked.Name != m.req.Missing.Model {
		s.Model = m.picked.Spec()
	}
	v := strings.TrimSpace(m.input.Value())
	if m.command {
		s.KeyCommand = v
	} else {
		s.Key = v
	}
	return s
}

func (m *setupModel) Init() tea.Cmd { return nil }

func (m *setupModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = msg.Width
		m.input.SetWidth(max(msg.Width-4, 10))
	case tea.PasteMsg:
		if m.picked != nil {
			m.input.SetValue(m.input.Value() + strings.TrimSpace(msg.Content))
			m.input.CursorEnd()
		}
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			m.quitting = true
			return m, tea.Quit
		}
		if m.picked == nil {
			return m, m.pickKey(msg)
		}
		return m, m.keyKey(msg)
	}
	return m, nil
}

// pickKey handles a key while the model list shows: typing filters it.
func (m *setupModel) pickKey(k tea.KeyPressMsg) tea.Cmd {
	list := m.shown()
	switch k.String() {
	case "up":
		m.at = max(m.at-1, 0)
	case "down":
		m.at = min(m.at+1, max(len(list)-1, 0))
	case "esc":
		m.filter, m.at = "", 0
	case "backspace":
		if m.filter != "" {
			m.filter, m.at = m.filter[:len(m.filter)-1], 0
		}
	case "enter":
		if m.at < len(list) {
			mi := list[m.at]
			m.picked = &mi
			return m.input.Focus()
		}
	default:
		if k.Text != "" {
			m.filter, m.at = m.filter+k.Text, 0
		}
	}
	return nil
}

// keyKey handles a key while the key (or command) is asked for.
func (m *setupModel) keyKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.picked = nil
		m.input.Reset()
		return nil
	case "tab":
		m.command = !m.command
		m.input.EchoMode = textinput.EchoPassword
		if m.command {
			m.input.EchoMode = textinput.EchoNormal
		}
		return nil
	case "enter":
		if strings.TrimSpace(m.input.Value()) == "" {
			return nil
		}
		m.done = true
		return tea.Quit
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

func (m *setupModel) View() tea.View {
	var b strings.Builder
	miss := m.req.Missing
	switch {
	case m.done || m.quitting:
		// The program's last frame stays on the terminal: no key in it.
		if m.done {
			fmt.Fprintf(&b, "Stored the %s key source in %s (mode 0600).\n", m.picked.Provider, m.req.Where)
		}
		return tea.NewView(b.String())
	case m.picked == nil:
		fmt.Fprintf(&b, "%s\n", m.st.title.Render("Welcome to OpenSeek"))
		fmt.Fprintf(&b, "%s has no API key: none of %s is set.\n", miss.Model, miss.Hint)
		fmt.Fprintf(&b, "Choose the model to start with (type to filter, ↑/↓, Enter; Ctrl-C leaves):\n")
		if m.filter != "" {
			fmt.Fprintf(&b, "filter: %s\n", m.filter)
		}
		list := m.shown()
		w := specWidth(m.req.Models)
		b.WriteString(m.st.dim.Render(fmt.Sprintf("  %-*s %6s  %-22s %s", w, "model", "window", "$/M tokens cached/in/out", "key")) + "\n")
		start := max(m.at-11, 0)
		for i := start; i < len(list) && i < start+12; i++ {
			row := "  " + modelRow(list[i], w)
			if i == m.at {
				row = m.st.user.Render("› " + modelRow(list[i], w))
			}
			b.WriteString(truncate(row, m.width) + "\n")
		}
		if len(list) == 0 {
			b.WriteString(m.st.dim.Render("  no model matches") + "\n")
		}
	default:
		what := fmt.Sprintf("Paste your %s API key (it is not shown)", m.picked.Provider)
		if m.command {
			what = fmt.Sprintf("A command that prints your %s API key (api_key_command, e.g. pass show %s)", m.picked.Provider, m.picked.Provider)
		}
		fmt.Fprintf(&b, "%s\n%s, then Enter:\n%s\n", m.st.title.Render(m.picked.Spec()), what, m.input.View())
		other := "give a command instead"
		if m.command {
			other = "paste a key instead"
		}
		fmt.Fprintf(&b, "%s\n", m.st.dim.Render(fmt.Sprintf("Tab: %s · Esc: back · stored in %s, mode 0600", other, m.req.Where)))
	}
	return tea.NewView(b.String())
}
