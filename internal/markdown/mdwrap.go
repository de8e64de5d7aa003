package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// splitCells cuts s after at most n cells and says how many the head
// takes. It walks the head only, so cutting a long line into many is
// linear in its length.
func splitCells(s string, n int) (head, tail string, width int) {
	i := 0
	for i < len(s) {
		if c := s[i]; c >= 0x20 && c <= 0x7e {
			if width+1 > n {
				break
			}
			i++
			width++
			continue
		}
		g, gw := ansi.FirstGraphemeCluster(s[i:], ansi.GraphemeWidth)
		if g == "" || width+gw > n {
			break
		}
		i += len(g)
		width += gw
	}
	return s[:i], s[i:], width
}

// firstGrapheme splits off the first character (with its combining marks).
func firstGrapheme(s string) (head, tail string) {
	g, _ := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
	if g == "" && s != "" {
		_, n := utf8.DecodeRuneInString(s)
		g = s[:n]
	}
	return g, s[len(g):]
}

// wrap fills lines of width cells with the spans' words; a word longer
// than a line is cut.
func (w *mdRender) wrap(sp []span, width int) []string {
	width = max(width, 1)
	var lines []string
	var line, word []span
	lw, ww := 0, 0
	var space *span // the pending space before word
	emit := func() {
		lines = append(lines, w.line(line))
		line, lw = line[:0], 0
	}
	flush := func() {
		if len(word) == 0 {
			return
		}
		if space != nil && lw > 0 {
			if lw+1+ww <= width {
				line = append(line, span{text: " ", st: space.st, link: space.link})
				lw++
			} else {
				emit()
			}
		}
		space = nil
		for ww > width-lw && len(word) > 0 {
			if lw > 0 {
				emit()
				continue
			}
			head, tail, hw := cutSpans(word, width)
			line = append(line, head...)
			emit()
			word, ww = tail, ww-hw
		}
		line = append(line, word...)
		lw += ww
		word, ww = word[:0], 0
	}
	for i := range sp {
		s := &sp[i]
		t := s.text
		for t != "" {
			j := strings.IndexAny(t, " \t\n")
			if j < 0 {
				word = append(word, span{text: t, st: s.st, link: s.link})
				ww += cellWidth(t)
				break
			}
			if j > 0 {
				word = append(word, span{text: t[:j], st: s.st, link: s.link})
				ww += cellWidth(t[:j])
			}
			flush()
			if t[j] == '\n' {
				emit()
				space = nil
			} else if space == nil {
				space = s
			}
			t = t[j+1:]
		}
	}
	flush()
	if lw > 0 {
		emit()
	}
	return lines
}

// spansWidth is the width of spans in cells.
func spansWidth(sp []span) int {
	n := 0
	for _, s := range sp {
		n += cellWidth(s.text)
	}
	return n
}

// cellWidth is the width of unstyled text in cells; printable ASCII,
// most of what a model writes, skips the grapheme segmentation.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// cutSpans splits spans after n cells (at least one character goes to
// the head, so that a cut always makes progress) and says how many cells
// the head takes.
func cutSpans(sp []span, n int) (head, tail []span, hw int) {
	for i, s := range sp {
		h, t, w := splitCells(s.text, n-hw)
		if h == "" && hw == 0 && s.text != "" {
			h, t = firstGrapheme(s.text)
			w = cellWidth(h)
		}
		if h != "" {
			head = append(head, span{text: h, st: s.st, link: s.link})
			hw += w
		}
		if t != "" {
			tail = append(tail, span{text: t, st: s.st, link: s.link})
			return head, append(tail, sp[i+1:]...), hw
		}
	}
	return head, nil, hw
}

// line joins spans into one self-contained line, merging neighbours of
// one style.
func (w *mdRender) line(sp []span) string {
	var b strings.Builder
	for i := 0; i < len(sp); {
		j := i + 1
		for j < len(sp) && sp[j].st == sp[i].st && sp[j].link == sp[i].link {
			j++
		}
		sgr := w.th.sgr(sp[i].st)
		link := sp[i].link != "" && !w.th.plain
		if sgr != "" {
			b.WriteString(sgr)
		}
		if link {
			b.WriteString(ansi.SetHyperlink(sp[i].link))
		}
		for _, s := range sp[i:j] {
			b.WriteString(s.text)
		}
		if link {
			b.WriteString(ansi.ResetHyperlink())
		}
		if sgr != "" {
			b.WriteString(ansi.ResetStyle)
		}
		i = j
	}
	return b.String()
}
