// Package tui is OpenSeek's terminal UI: a Bubble Tea program, full
// screen or inline (inline.go: finished blocks go to the terminal's
// scrollback once), that is one more client of a session engine. It reads protocol events
// and sends protocol commands through a Backend (the in-process host, or a
// running HTTP server) and never reaches into the agent loop.
//
// Rendering is incremental: the transcript is a list of blocks that cache
// their lines; markdown answers render finished blocks once and only the
// growing tail again; a frame composes only the visible lines, from the
// bottom up, so a token costs the same in a 5,000-event session as in a new
// one.
package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/protocol"
)

// Options configure the UI.
type Options struct {
	Open     OpenRequest // the first session
	NoColor  bool
	Approval string // the permission mode sessions open in ("" = backend's)
	// Workspace is shown in the header: the directory the agent works in
	// (or the server a remote UI drives).
	Workspace string
	// ResumeHint, when set, makes the command line that resumes a session;
	// Run prints it after the terminal is restored.
	ResumeHint func(id string) string
	// FilesRoot is the local workspace whose files @ mentions complete
	// and attach ("" = none: an attached server's files are not here).
	FilesRoot string
	// Throttle is how often a growing markdown tail may be rendered again
	// (0 = on every frame).
	Throttle time.Duration
	// Now is the clock (tests fix it); nil = time.Now.
	Now func() time.Time
	// Bell rings the terminal (BEL) when a turn ends or an approval
	// waits ([tui] bell).
	Bell bool
	// Inline draws in the terminal's normal screen: what is finished is
	// printed into its scrollback once, and only the live part (the
	// running turn, the input, the status line) is redrawn ([tui] inline,
	// --inline).
	Inline bool
}

// Model is the Bubble Tea model of the UI.
type Model struct {
	ctx     context.Context
	backend Backend
	opts    Options
	conn    Conn
	gen     int // bumps when conn changes; older event batches are dropped

	width, height int
	st            *styles
	md            *renderers
	dark          bool
	spin          spinner.Model
	input         textarea.Model
	tr            transcript
	offset        int  // lines scrolled up from the bottom
	expand        bool // tool output and reasoning unfolded

	// The turn in progress.
	busy      bool
	answer    *answerBlock
	reasoning *reasoningBlock
	cards     map[string]*toolCard
	running   int         // tool cards still running
	checking  *checkBlock // the build check running, if any
	pending   []pendingSteer
	shells    int       // `!` commands sent and not yet answered
	queued    []string  // sent with Tab during a turn: run when it ends
	after     []tea.Cmd // what handled events asked for (a bell, a queued prompt)
	printed   int       // inline: the blocks already printed into the scrollback
	outbox    []string  // inline: lines waiting to be printed, in order
	printing  bool      // inline: a chunk of the outbox is on its way
	frameH    int       // inline: the tallest of the last two frames
	lastH     int
	ticking   bool // the clock runs (see animated)
	steerN    int
	approvals []protocol.ApprovalRequested
	denying   bool // the input holds a deny reason
	quitArmed bool // one Ctrl-C seen
	picker    *picker
	// The command menu: the selection, the input it was made for, and
	// the input Esc hid the menu at.
	menuAt              int
	menuFor, menuHidden string
	files               []string // the workspace's files, sorted (nil = not listed yet)
	filesLoading        bool

	// Input history and large pastes.
	hist       []string
	histAt     int
	draft      string
	pastes     map[string]string
	pasteN     int
	stat       statusInfo
	wantOutput string
	replaying  bool            // a reopened session replays its start-up warnings, already shown
	warned     map[string]bool // warnings shown: each once (a retry may recur)
	model      string
	mode       string
	loadErr    string
	quit       bool
}

type pendingSteer struct{ id, text string }

// New builds the model around an open connection.
func New(ctx context.Context, b Backend, conn Conn, o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	m := &Model{ctx: ctx, backend: b, opts: o, dark: true, cards: map[string]*toolCard{}, pastes: map[string]string{},
		width: 80, height: 24, mode: o.Approval}
	m.st, m.md = newStyles(o.NoColor, true), newRenderers(o.NoColor, true)
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot))
	m.input = textarea.New()
	m.input.Placeholder = "Ask OpenSeek… (/help for commands)"
	m.input.ShowLineNumbers = false
	m.input.Prompt = "› "
	m.input.CharLimit = 0
	m.input.MaxHeight = 8
	m.input.DynamicHeight = true
	m.input.MinHeight = 1
	m.input.KeyMap.InsertNewline.SetKeys("shift+enter", "alt+enter", "ctrl+j")
	m.input.SetStyles(inputStyles(o.NoColor, true))
	m.input.SetVirtualCursor(false) // the terminal's cursor: no blinking frames
	m.input.Focus()
	m.attach(conn)
	return m
}

func inputStyles(noColor, dark bool) textarea.Styles {
	s := textarea.DefaultStyles(dark)
	if noColor {
		p := lipgloss.NewStyle()
		s.Focused.CursorLine, s.Focused.Placeholder, s.Focused.Prompt, s.Focused.Text = p, p, p, p
		s.Blurred = s.Focused
		s.Cursor.Color = nil
	} else {
		s.Focused.CursorLine = lipgloss.NewStyle()
	}
	return s
}

// attach makes conn the session shown, with its history.
func (m *Model) attach(conn Conn) {
	m.conn = conn
	m.gen++
	m.tr = transcript{}
	m.printed = 0
	m.tr.add(headerBlock{m})
	m.offset, m.busy, m.answer, m.reasoning, m.running = 0, false, nil, nil, 0
	m.checking = nil
	m.cards, m.pending, m.approvals, m.denying, m.shells = map[string]*toolCard{}, nil, nil, false, 0
	m.stat = statusInfo{jobs: map[string]bool{}, gens: map[string]string{}}
	m.model = conn.Model()
	m.stat.window = conn.Window()
	if h := conn.History(); h != nil {
		m.loadHistory(h)
	}
}

type eventsMsg struct {
	gen int
	evs []protocol.Event
	err error
}

type tickMsg struct{}

// pump reads the next batch of events of the current connection.
func (m *Model) pump() tea.Cmd {
	conn, gen, ctx := m.conn, m.gen, m.ctx
	return func() tea.Msg {
		evs, err := conn.Next(ctx)
		return eventsMsg{gen: gen, evs: evs, err: err}
	}
}

func tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

// Init starts reading events and asks the terminal for its background.
func (m *Model) Init() tea.Cmd {
	cmd := tea.Batch(m.pump(), tea.RequestBackgroundColor, m.input.Focus())
	if m.opts.Inline {
		cmd = tea.Batch(cmd, m.printFinished())
	}
	return cmd
}

// animated reports whether the screen changes by itself: a spinner, a
// running card's clock, a streaming answer's throttled tail. Only then
// does the clock tick, so an idle UI costs no CPU.
func (m *Model) animated() bool {
	return m.busy || m.running > 0 || m.shells > 0 || m.checking != nil
}

// Update handles one message, and starts the clock when the screen
// begins to move by itself.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	if !m.ticking && m.animated() {
		m.ticking = true
		cmd = tea.Batch(cmd, tick())
	}
	if m.opts.Inline {
		cmd = tea.Batch(cmd, m.printFinished())
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.input.SetWidth(max(msg.Width, 10))
		return m, nil
	case tea.BackgroundColorMsg:
		if d := msg.IsDark(); d != m.dark {
			m.dark = d
			m.st, m.md = newStyles(m.opts.NoColor, d), newRenderers(m.opts.NoColor, d)
			m.input.SetStyles(inputStyles(m.opts.NoColor, d))
			m.invalidate()
		}
		return m, nil
	case eventsMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		if msg.err != nil {
			if m.ctx.Err() == nil {
				m.note(kindErr, "✗ ", "the session's event stream ended: "+msg.err.Error()+" — /new or /sessions opens another; Ctrl-C twice quits")
			}
			m.busy = false
			return m, nil
		}
		m.anchored(func() {
			for _, e := range msg.evs {
				m.handle(e)
			}
		})
		cmds := append(m.after, m.pump())
		m.after = nil
		return m, tea.Batch(cmds...)
	case tickMsg:
		if !m.animated() {
			m.ticking = false // still: the next frame is drawn when something happens
			return m, nil
		}
		m.spin, _ = m.spin.Update(spinner.TickMsg{ID: m.spin.ID()})
		return m, tick()
	case printedMsg:
		m.printing = false
		return m, m.drain()
	case opened:
		return m, m.onOpened(msg)
	case sessionsMsg:
		m.onSessions(msg)
		return m, nil
	case filesMsg:
		m.onFiles(msg)
		return m, nil
	case diffMsg:
		m.onDiff(msg)
		return m, nil
	case tea.PasteMsg:
		return m, m.paste(msg.Content)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// anchored applies events to a view scrolled up without moving it: the
// lines they add below (a streaming answer, new tool cards) raise the
// offset by as many. Only the blocks from the top of the last frame on
// are counted, which is what that frame cost.
func (m *Model) anchored(apply func()) {
	if m.offset == 0 {
		apply()
		return
	}
	vw, top := m.view(), m.tr.top
	before := m.tr.linesFrom(vw, top)
	apply()
	if m.offset > 0 {
		m.offset = max(m.offset+m.tr.linesFrom(vw, top)-before, 0)
	}
}

// invalidate drops cached renderings (colours or width changed).
func (m *Model) invalidate() {
	for _, b := range m.tr.blocks {
		switch b := b.(type) {
		case *textBlock:
			b.cache = nil
		case *toolCard:
			b.cache = nil
		case *answerBlock:
			b.md.width = -1
		}
	}
}

// note adds a one-paragraph block.
func (m *Model) note(kind int, prefix, text string) {
	m.tr.add(&textBlock{kind: kind, prefix: prefix, text: text})
}

func (m *Model) view() *view {
	return &view{width: max(m.width, 20), st: m.st, md: m.md, now: m.opts.Now(), throttle: m.opts.Throttle,
		expand: m.expand, spin: m.spin.View()}
}

// View draws the frame: transcript, pending steers, dialog or input,
// status line. The cursor is the terminal's own (it blinks without
// waking the UI), placed in the input.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = !m.opts.Inline
	content, row := m.frame()
	v.Content = content
	if m.opts.Inline {
		// The frame on the terminal is this one or the one before.
		h := strings.Count(content, "\n") + 1
		m.frameH, m.lastH = max(h, m.lastH), h
	}
	if c := m.input.Cursor(); c != nil && row >= 0 {
		c.Y += row
		v.Cursor = c
	}
	if m.quit {
		v.Content, v.Cursor = "", nil
	}
	return v
}

func (m *Model) render() string {
	s, _ := m.frame()
	return s
}

// frame is the screen, and the row the input starts on (-1 = no input).
func (m *Model) frame() (string, int) {
	vw := m.view()
	row := -1
	var bottom []string
	for _, p := range m.pending {
		bottom = append(bottom, truncate(m.st.pending.Render("⧗ pending steer: "+oneLine(p.text)), vw.width))
	}
	for i, q := range m.queued {
		line := "⏵ queued: " + oneLine(q)
		if i == len(m.queued)-1 {
			line += "  (⌫ on an empty input takes it back)"
		}
		bottom = append(bottom, truncate(m.st.pending.Render(line), vw.width))
	}
	switch {
	case m.picker != nil:
		bottom = append(bottom, m.picker.lines(vw, max(m.height/2, 5))...)
	case len(m.approvals) > 0 && !m.denying:
		bottom = append(bottom, m.dialog(vw)...)
	default:
		if m.denying {
			bottom = append(bottom, m.st.warn.Render("Reason for denying (Enter sends, Esc denies without one):"))
		}
		bottom = append(bottom, m.st.dim.Render(strings.Repeat("─", vw.width)))
		row = len(bottom)
		bottom = append(bottom, strings.Split(m.input.View(), "\n")...)
		if mu := m.activeMenu(); mu != nil { // under the input, as in an editor
			bottom = append(bottom, m.menuLines(vw, mu)...)
		}
	}
	if m.quitArmed {
		bottom = append(bottom, m.st.warn.Render("Press Ctrl-C again to quit."))
	}
	bottom = append(bottom, m.statusLine(vw))
	h := max(m.height-len(bottom), 1)
	if m.opts.Inline {
		lines := m.liveLines(vw, h)
		if row >= 0 {
			row += len(lines)
		}
		return strings.Join(append(lines, bottom...), "\n"), row
	}
	lines, more := m.tr.window(vw, h, m.offset)
	if more && len(lines) == h && m.offset > 0 {
		lines[0] = m.st.dim.Render(fmt.Sprintf("↑ more (PgUp/PgDn scroll; %d lines up)", m.offset))
	}
	for len(lines) < h {
		lines = append([]string{""}, lines...)
	}
	if row >= 0 {
		row += h
	}
	return strings.Join(append(lines, bottom...), "\n"), row
}

// dialog is the approval prompt.
func (m *Model) dialog(vw *view) []string {
	a := m.approvals[0]
	var b strings.Builder
	fmt.Fprintf(&b, "%s wants to run:\n%s", m.st.title.Render(a.ToolName), a.Detail)
	if a.Body != nil && strings.TrimSpace(*a.Body) != "" {
		body := strings.Split(strings.TrimRight(*a.Body, "\n"), "\n")
		if len(body) > 6 {
			body = append(body[:6], fmt.Sprintf("… %d more lines", len(body)-6))
		}
		b.WriteString("\n" + strings.Join(body, "\n"))
	}
	session := "allow for this session"
	if c := a.Covers(); c != "" {
		session = "don't ask again for " + c + " in this session"
	}
	b.WriteString("\n\n[y] allow once\n[a] " + session + "\n[n] deny (with a reason) · Esc denies · Ctrl-C interrupts the turn")
	if len(m.approvals) > 1 {
		fmt.Fprintf(&b, "   (%d more waiting)", len(m.approvals)-1)
	}
	box := m.st.dialog.Width(vw.width).Render(ansiWrap(b.String(), vw.width-4))
	return strings.Split(box, "\n")
}

// Close lets go of the current session.
func (m *Model) Close() error {
	if m.conn == nil {
		return nil
	}
	return m.conn.Close()
}

var _ = engine.SessionInfo{}
