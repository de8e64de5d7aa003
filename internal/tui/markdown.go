package tui

import (
	"strings"
	"time"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
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
	tailSrc   int // len(text) when tail was rendered
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
}

// lines renders the markdown at width with r (throttle: how often the tail
// may be rendered again while it grows).
func (m *markdown) lines(width int, r *renderers, throttle time.Duration, now time.Time) []string {
	if width != m.width {
		m.width, m.rendered, m.renderedN, m.tail, m.tailSrc = width, nil, 0, nil, -1
	}
	for ; m.renderedN < len(m.blocks); m.renderedN++ {
		m.rendered = append(m.rendered, r.render(m.blocks[m.renderedN], width)...)
	}
	t := m.text.String()
	if m.done >= len(t) || strings.TrimSpace(t[m.done:]) == "" {
		return m.rendered
	}
	if m.tailSrc != len(t) && (m.tail == nil || now.Sub(m.tailAt) >= throttle) {
		m.tail, m.tailSrc, m.tailAt = r.render(t[m.done:], width), len(t), now
	}
	out := make([]string, 0, len(m.rendered)+len(m.tail))
	return append(append(out, m.rendered...), m.tail...)
}

// renderers holds one Glamour renderer per width (they are costly to make).
type renderers struct {
	style string
	byW   map[int]*glamour.TermRenderer
}

func newRenderers(plain, dark bool) *renderers {
	style := "dark"
	switch {
	case plain:
		style = "notty"
	case !dark:
		style = "light"
	}
	return &renderers{style: style, byW: map[int]*glamour.TermRenderer{}}
}

// render turns one markdown block into lines, without Glamour's margins.
func (r *renderers) render(src string, width int) []string {
	tr, ok := r.byW[width]
	if !ok {
		var err error
		tr, err = glamour.NewTermRenderer(glamour.WithStandardStyle(r.style), glamour.WithWordWrap(max(width-2, 10)), glamour.WithEmoji())
		if err != nil {
			return wrapPlain(src, width)
		}
		r.byW[width] = tr
	}
	out, err := tr.Render(src)
	if err != nil {
		return wrapPlain(src, width)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// wrapPlain wraps text to width without styling.
func wrapPlain(s string, width int) []string {
	return strings.Split(ansi.Wrap(strings.TrimRight(s, "\n"), max(width, 10), ""), "\n")
}
