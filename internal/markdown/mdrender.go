package markdown

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// styleBits is a combination of inline and block styles.
type styleBits uint16

const (
	sBold styleBits = 1 << iota
	sItalic
	sStrike
	sCode      // inline code
	sCodeBlock // fenced or indented code
	sLink      // a link's text
	sURL       // a link's address
	sHeading
	sDim // rules, quote bars, table borders, raw HTML
)

// mdTheme turns style bits into SGR sequences; plain makes every style
// empty, so that NO_COLOR output carries no escape at all.
type mdTheme struct {
	plain                           bool
	heading, code, block, link, dim ansi.Color
	sgrs                            map[styleBits]string
}

func newMDTheme(plain, dark bool) *mdTheme {
	t := &mdTheme{plain: plain, sgrs: map[styleBits]string{}}
	pick := func(light, darkC uint8) ansi.Color {
		if dark {
			return ansi.IndexedColor(darkC)
		}
		return ansi.IndexedColor(light)
	}
	t.heading = pick(25, 75)
	t.code = pick(130, 215)
	t.block = pick(94, 180)
	t.link = pick(26, 111)
	t.dim = pick(245, 243)
	return t
}

// sgr is the escape sequence that starts style b ("" when plain).
func (t *mdTheme) sgr(b styleBits) string {
	if t.plain || b == 0 {
		return ""
	}
	if s, ok := t.sgrs[b]; ok {
		return s
	}
	st := ansi.NewStyle()
	if b&(sBold|sHeading) != 0 {
		st = st.Bold()
	}
	if b&sItalic != 0 {
		st = st.Italic(true)
	}
	if b&sStrike != 0 {
		st = st.Strikethrough(true)
	}
	if b&sLink != 0 {
		st = st.Underline(true)
	}
	switch {
	case b&sHeading != 0:
		st = st.ForegroundColor(t.heading)
	case b&sCode != 0:
		st = st.ForegroundColor(t.code)
	case b&sCodeBlock != 0:
		st = st.ForegroundColor(t.block)
	case b&sLink != 0:
		st = st.ForegroundColor(t.link)
	case b&(sURL|sDim) != 0:
		st = st.ForegroundColor(t.dim)
	}
	s := st.String()
	t.sgrs[b] = s
	return s
}

// paint styles one piece of text.
func (t *mdTheme) paint(s string, b styleBits) string {
	if sgr := t.sgr(b); sgr != "" && s != "" {
		return sgr + s + ansi.ResetStyle
	}
	return s
}

// span is a run of inline text in one style; link is the address an
// OSC 8 hyperlink points to ("" = none).
type span struct {
	text string
	st   styleBits
	link string
}

// mdRender renders one parsed markdown source to terminal lines. Every
// line it returns is self-contained: styles are closed at its end, so
// the transcript can show any window of lines.
type mdRender struct {
	th *mdTheme
}

// blocks renders the block children of parent; gap puts a blank line
// between them.
func (w *mdRender) blocks(parent *mdNode, width, depth int, gap bool) []string {
	var out []string
	for c := parent.first; c != nil; c = c.next {
		ls := w.block(c, width, depth, false)
		if len(ls) == 0 {
			continue
		}
		if gap && len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	return out
}

// block renders one block node at width cells (task: the first block of
// a list item, where "[ ]" and "[x]" are check boxes).
func (w *mdRender) block(n *mdNode, width, depth int, task bool) []string {
	width = max(width, 4)
	switch n.kind {
	case mdHeading:
		sp := []span{{text: strings.Repeat("#", n.level) + " ", st: sHeading}}
		return w.wrap(w.inline(n, sHeading, "", sp), width)
	case mdParagraph:
		if n.first == nil {
			return nil
		}
		if t := w.table(n, width); t != nil {
			return t
		}
		sp := w.inline(n, 0, "", nil)
		if task {
			sp = checkBox(sp)
		}
		return w.wrap(sp, width)
	case mdThematicBreak:
		return []string{w.th.paint(strings.Repeat("─", width), sDim)}
	case mdCodeBlock:
		return w.code(n, width)
	case mdBlockquote:
		inner := w.blocks(n, width-2, depth, true)
		bar := w.th.paint("│", sDim)
		for i, l := range inner {
			inner[i] = strings.TrimRight(bar+" "+l, " ")
		}
		return inner
	case mdList:
		return w.list(n, width, depth)
	case mdHTMLBlock:
		var out []string
		for _, l := range n.lines {
			out = append(out, w.hard(strings.TrimRight(l, "\r\n"), width, sDim)...)
		}
		return out
	}
	if n.isBlock() && n.first != nil {
		return w.blocks(n, width, depth, true)
	}
	return nil
}

// bullets are the list markers by nesting depth.
var bullets = [...]string{"•", "◦", "▪"}

// list renders a bullet or ordered list, the items' text aligned after
// the widest marker.
func (w *mdRender) list(l *mdNode, width, depth int) []string {
	var marks []string
	mw := 0
	num := l.start
	for it := l.first; it != nil; it = it.next {
		m := bullets[depth%len(bullets)]
		if l.ordered {
			m = fmt.Sprintf("%d%c", num, l.marker)
			num++
		}
		marks = append(marks, m)
		mw = max(mw, ansi.StringWidth(m))
	}
	mw++
	var out []string
	i := 0
	for it := l.first; it != nil; it, i = it.next, i+1 {
		var body []string
		for c := it.first; c != nil; c = c.next {
			ls := w.block(c, width-mw, depth+1, c == it.first)
			if len(ls) == 0 {
				continue
			}
			if !l.tight && len(body) > 0 {
				body = append(body, "")
			}
			body = append(body, ls...)
		}
		if !l.tight && i > 0 {
			out = append(out, "")
		}
		if len(body) == 0 {
			body = []string{""}
		}
		pad := strings.Repeat(" ", mw-ansi.StringWidth(marks[i]))
		out = append(out, marks[i]+pad+body[0])
		indent := strings.Repeat(" ", mw)
		for _, b := range body[1:] {
			if b == "" {
				out = append(out, "")
				continue
			}
			out = append(out, indent+b)
		}
	}
	return out
}

// checkBox turns a task item's leading "[ ] " or "[x] " into a box.
func checkBox(sp []span) []span {
	// The parser leaves "[", " " and "] x" as separate texts.
	var lead strings.Builder
	k := 0
	for ; k < len(sp) && sp[k].st == 0 && sp[k].link == "" && lead.Len() < 4; k++ {
		lead.WriteString(sp[k].text)
	}
	t := lead.String()
	for _, c := range []struct{ from, to string }{{"[ ] ", "☐ "}, {"[x] ", "☑ "}, {"[X] ", "☑ "}} {
		if strings.HasPrefix(t, c.from) {
			return append([]span{{text: c.to + t[len(c.from):]}}, sp[k:]...)
		}
	}
	return sp
}

// code renders a code block: its own colour, two cells of indent, tabs
// as spaces, and long lines broken at a space where one is near.
func (w *mdRender) code(n *mdNode, width int) []string {
	cw := max(width-2, 8)
	var out []string
	for _, l := range n.lines {
		l = strings.TrimRight(l, "\r\n")
		l = strings.TrimRight(expandTabs(l), " ")
		for _, part := range breakCode(l, cw) {
			out = append(out, "  "+w.th.paint(part, sCodeBlock))
		}
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	for i, l := range out {
		if strings.TrimSpace(l) == "" {
			out[i] = ""
		}
	}
	return out
}

// expandTabs replaces tabs with spaces to the next multiple of four
// columns: a tab has no width a terminal cell grid can count.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		if r < utf8.RuneSelf {
			col++
		} else {
			col += ansi.StringWidth(string(r))
		}
	}
	return b.String()
}

// breakCode splits a code line longer than width: after the last space
// that leaves more than a third of the line, else at width exactly; the
// continuation is indented two cells more than the line.
func breakCode(l string, width int) []string {
	if _, rest, _ := splitCells(l, width); rest == "" {
		return []string{l}
	}
	ind := min(len(l)-len(strings.TrimLeft(l, " "))+2, width/2)
	indent := strings.Repeat(" ", ind)
	var out []string
	prefix, lim := "", width
	for {
		head, rest, _ := splitCells(l, lim)
		if rest == "" {
			return append(out, prefix+l)
		}
		if head == "" { // a character wider than the room left
			head, rest = firstGrapheme(l)
		}
		if sp := strings.LastIndexByte(head, ' '); sp > len(head)/3 && strings.TrimSpace(head[:sp]) != "" {
			head, rest = head[:sp+1], l[sp+1:]
		}
		out = append(out, prefix+strings.TrimRight(head, " "))
		l, prefix, lim = rest, indent, width-ind
	}
}

// hard cuts plain text into lines of width cells in one style.
func (w *mdRender) hard(s string, width int, st styleBits) []string {
	s = expandTabs(s)
	var out []string
	for {
		head, rest, _ := splitCells(s, width)
		if rest == "" {
			return append(out, w.th.paint(strings.TrimRight(s, " "), st))
		}
		if head == "" {
			head, rest = firstGrapheme(s)
		}
		out = append(out, w.th.paint(head, st))
		s = rest
	}
}

// inline collects the inline content of n as spans.
func (w *mdRender) inline(n *mdNode, st styleBits, link string, out []span) []span {
	plain := w.th.plain
	for c := n.first; c != nil; c = c.next {
		switch c.kind {
		case mdText:
			if c.text != "" {
				out = append(out, span{text: c.text, st: st, link: link})
			}
			switch {
			case c.hard:
				out = append(out, span{text: "\n"})
			case c.soft:
				out = append(out, span{text: " ", st: st, link: link})
			}
		case mdCodeSpan:
			out = append(out, span{text: c.text, st: st | sCode, link: link})
		case mdEmphasis:
			bit, mark := sItalic, "*"
			if c.level >= 2 {
				bit, mark = sBold, "**"
			}
			out = w.marked(c, mark, plain, st|bit, link, out)
		case mdStrike:
			out = w.marked(c, "~~", plain, st|sStrike, link, out)
		case mdLink:
			from := len(out)
			out = w.inline(c, st|sLink, c.dest, out)
			var label strings.Builder
			for _, s := range out[from:] {
				label.WriteString(s.text)
			}
			if c.dest != "" && label.String() != c.dest {
				out = append(out, span{text: " ", st: st}, span{text: "(" + c.dest + ")", st: st | sURL, link: c.dest})
			}
		case mdAutoLink:
			out = append(out, span{text: c.text, st: st | sLink, link: c.text})
		case mdImage:
			out = append(out, span{text: "[image: ", st: st | sDim})
			out = w.inline(c, st|sDim, "", out)
			out = append(out, span{text: "]", st: st | sDim})
			if d := c.dest; d != "" {
				out = append(out, span{text: " ", st: st}, span{text: "(" + d + ")", st: st | sURL, link: d})
			}
		case mdRawHTML:
			out = append(out, span{text: strings.ReplaceAll(c.text, "\n", " "), st: st | sDim})
		default:
			out = w.inline(c, st, link, out)
		}
	}
	return out
}

// marked renders emphasis: its style in colour, its markdown markers
// when plain (there is no other way to show it).
func (w *mdRender) marked(n *mdNode, mark string, plain bool, st styleBits, link string, out []span) []span {
	if plain {
		out = append(out, span{text: mark, st: st, link: link})
	}
	out = w.inline(n, st, link, out)
	if plain {
		out = append(out, span{text: mark, st: st, link: link})
	}
	return out
}
