package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Inline mode (Options.Inline) keeps the terminal's own scrollback and
// mouse selection: blocks that will not change again are printed above
// the program once, in order, and leave the frame; the frame holds only
// the blocks still live and the input. Nothing already printed is drawn
// again, so a long session costs a frame no more than a new one.

// settled reports whether a block will not change any more, so it may be
// printed into the scrollback.
func (m *Model) settled(b block) bool {
	switch b := b.(type) {
	case *answerBlock:
		return b != m.answer
	case *reasoningBlock:
		return b.folded
	case *toolCard:
		return b.done
	case *checkBlock:
		return b.done
	}
	return true
}

// printFinished prints the settled blocks that follow those printed
// before, up to the first live one; of a streaming answer, the markdown
// blocks it finished so far (so the frame holds only its growing tail).
func (m *Model) printFinished() tea.Cmd {
	vw := m.view()
	var out []string
	for ; m.printed < len(m.tr.blocks); m.printed++ {
		b := m.tr.blocks[m.printed]
		a, _ := b.(*answerBlock)
		if !m.settled(b) {
			if a != nil {
				a.md.lines(vw.width, vw.md, vw.throttle, vw.now)
				if n := len(a.md.rendered); n > a.shown {
					out = append(append(out, a.md.rendered[a.shown:n]...), "")
					a.shown = n
				}
			}
			break
		}
		ls := b.lines(vw)
		if a != nil {
			ls = ls[min(a.shown, len(ls)):]
		}
		if len(ls) > 0 {
			out = append(append(out, ls...), "")
		}
	}
	if len(out) > 0 {
		m.outbox = append(m.outbox, out[:len(out)-1]...)
	}
	return m.drain()
}

// printedMsg: the last chunk of the outbox was printed.
type printedMsg struct{}

// drain prints the next chunk of the outbox, one chunk at a time so that
// chunks keep their order. A chunk fits above the frame: Bubble Tea
// scrolls the frame up to make room, and what it scrolls past the top of
// the screen would stay in the scrollback.
func (m *Model) drain() tea.Cmd {
	chunk, ok := m.nextChunk()
	if !ok {
		return nil
	}
	return tea.Sequence(tea.Println(chunk), func() tea.Msg { return printedMsg{} })
}

// nextChunk takes the next chunk off the outbox, unless one is on its
// way or there is none.
func (m *Model) nextChunk() (string, bool) {
	if m.printing || len(m.outbox) == 0 {
		return "", false
	}
	n := min(len(m.outbox), max(m.height-m.frameH-1, 1))
	chunk := strings.Join(m.outbox[:n], "\n")
	m.outbox = m.outbox[n:]
	m.printing = true
	return chunk, true
}

// liveLines are the unprinted blocks' lines (less what a streaming
// answer printed already), the last height-1 of them: the frame leaves
// the terminal a line, so it never pushes itself into the scrollback.
func (m *Model) liveLines(vw *view, height int) []string {
	var lines []string
	for _, b := range m.tr.blocks[min(m.printed, len(m.tr.blocks)):] {
		ls := b.lines(vw)
		if a, ok := b.(*answerBlock); ok {
			ls = ls[min(a.shown, len(ls)):]
		}
		if len(ls) > 0 {
			lines = append(append(lines, ls...), "")
		}
	}
	return lines[max(len(lines)-(height-1), 0):]
}
