package tui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	md "github.com/openseek/openseek/internal/markdown"
)

// markdown renders streaming markdown incrementally: the text is cut into
// blocks at blank lines outside code fences; a finished block is rendered
// once and its lines kept, and only the growing tail is rendered again
// (at most once per throttle while it grows).
type markdown struct {
	text      strings.Builder
	done      int      // bytes of text cut into finished blocks
	scan      int      // bytes already scanned for block ends
	fence     string   // the open code fence ("" = none) at scan
	blocks    []string // finished blocks' source
	rendered  []string // rendered lines of blocks[:len(renderedN)]
	renderedN int
	width     int
	tail      []string
	tailOK    bool // tail renders the current tail's text (perhaps shorter)
	tailSrc   int  // len(text) when tail was rendered
	tailAt    time.Time
	final     bool
}

// append adds streamed text.
func (m *markdown) append(s string) {
	m.text.WriteString(s)
	m.cut()
}

// finish marks the text complete (the whole of it is one more block).
func (m *markdown) finish() {
	m.final = true
	m.cut()
}

// cut moves every finished block of the text out of the tail.
func (m *markdown) cut() {
	t := m.text.String()
	done := m.done
	for {
		nl := strings.IndexByte(t[m.scan:], '\n')
		if nl < 0 {
			break
		}
		line := t[m.scan : m.scan+nl]
		m.scan += nl + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case m.fence != "":
			if strings.HasPrefix(trimmed, m.fence) && strings.Trim(trimmed, m.fence[:1]) == "" {
				m.fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			m.fence = trimmed[:3]
		case trimmed == "" && strings.TrimSpace(t[m.done:m.scan]) != "":
			m.blocks = append(m.blocks, t[m.done:m.scan])
			m.done = m.scan
		}
	}
	if m.final && strings.TrimSpace(t[m.done:]) != "" {
		m.blocks = append(m.blocks, t[m.done:])
		m.done, m.scan = len(t), len(t)
	}
	if m.done != done {
		// The old tail shows text that is now a finished block: never
		// show it again, even within the throttle.
		m.tail, m.tailOK = nil, false
	}
}

// lines renders the markdown at width with r (throttle: how often the tail
// may be rendered again while it grows). A blank line separates blocks.
func (m *markdown) lines(width int, r *renderers, throttle time.Duration, now time.Time) []string {
	if width != m.width {
		m.width, m.rendered, m.renderedN, m.tail, m.tailOK = width, nil, 0, nil, false
	}
	for ; m.renderedN < len(m.blocks); m.renderedN++ {
		ls := r.render(m.blocks[m.renderedN], width)
		if len(ls) > 0 && len(m.rendered) > 0 {
			m.rendered = append(m.rendered, "")
		}
		m.rendered = append(m.rendered, ls...)
	}
	t := m.text.String()
	if m.done >= len(t) || strings.TrimSpace(t[m.done:]) == "" {
		return m.rendered
	}
	if !m.tailOK || m.tailSrc != len(t) && now.Sub(m.tailAt) >= throttle {
		m.tail, m.tailOK, m.tailSrc, m.tailAt = r.render(t[m.done:], width), true, len(t), now
	}
	out := make([]string, 0, len(m.rendered)+len(m.tail)+1)
	out = append(out, m.rendered...)
	if len(out) > 0 && len(m.tail) > 0 {
		out = append(out, "")
	}
	return append(out, m.tail...)
}

// renderers renders markdown blocks for one colour scheme: the
// project's one Markdown implementation (package markdown), whose HTML
// the web app shows.
type renderers struct {
	t *md.Terminal
}

func newRenderers(plain, dark bool) *renderers {
	return &renderers{t: md.NewTerminal(plain, dark)}
}

// render turns one markdown block into lines: a margin of two cells on
// the left, wrapped to leave two on the right.
func (r *renderers) render(src string, width int) []string { return r.t.Render(src, width) }

// wrapPlain wraps text to width without styling.
func wrapPlain(s string, width int) []string {
	return strings.Split(ansi.Wrap(strings.TrimRight(s, "\n"), max(width, 10), ""), "\n")
}
