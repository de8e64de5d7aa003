package markdown

// The goldmark-based Markdown pipeline this package used before it had
// its own parser, kept as the oracle of the differential test
// (mdparse_test.go): goldmark's CommonMark parser plus a strikethrough
// inline parser, walked by the renderer as it was then. Only the parts
// that walk goldmark's tree are here; wrapping, styling and the table
// layout are the package's own.

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// gmRenderers is Terminal with goldmark as the parser.
type gmRenderers struct {
	th *mdTheme
	p  parser.Parser
}

func newGMRenderers(plain, dark bool) *gmRenderers {
	return &gmRenderers{th: newMDTheme(plain, dark), p: newMarkdownParser()}
}

// render is Terminal.Render as it was with goldmark.
func (r *gmRenderers) render(src string, width int) []string {
	b := []byte(sanitize(src))
	doc := r.p.Parse(text.NewReader(b))
	w := gmRender{mdRender: mdRender{th: r.th}, src: b, r: r}
	lines := w.blocks(doc, max(width-4, 10), 0, true)
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return lines
}

// gmRender walks a goldmark tree; the wrapping and styling are mdRender's.
type gmRender struct {
	mdRender
	src []byte
	r   *gmRenderers
}

// blocks renders the block children of parent; gap puts a blank line
// between them.
func (w *gmRender) blocks(parent ast.Node, width, depth int, gap bool) []string {
	var out []string
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
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
func (w *gmRender) block(n ast.Node, width, depth int, task bool) []string {
	width = max(width, 4)
	switch n := n.(type) {
	case *ast.Heading:
		sp := []span{{text: strings.Repeat("#", n.Level) + " ", st: sHeading}}
		return w.wrap(w.inline(n, sHeading, "", sp), width)
	case *ast.Paragraph, *ast.TextBlock:
		if n.FirstChild() == nil { // only link reference definitions
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
	case *ast.ThematicBreak:
		return []string{w.th.paint(strings.Repeat("─", width), sDim)}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return w.code(n, width)
	case *ast.Blockquote:
		inner := w.blocks(n, width-2, depth, true)
		bar := w.th.paint("│", sDim)
		for i, l := range inner {
			inner[i] = strings.TrimRight(bar+" "+l, " ")
		}
		return inner
	case *ast.List:
		return w.list(n, width, depth)
	case *ast.HTMLBlock:
		var out []string
		segs := n.Lines()
		for i := 0; i < segs.Len(); i++ {
			out = append(out, w.hard(strings.TrimRight(string(gmSegValue(segs, i, w.src)), "\r\n"), width, sDim)...)
		}
		if n.HasClosure() {
			out = append(out, w.hard(strings.TrimRight(string(n.ClosureLine.Value(w.src)), "\r\n"), width, sDim)...)
		}
		return out
	}
	if n.Type() == ast.TypeBlock && n.FirstChild() != nil {
		return w.blocks(n, width, depth, true)
	}
	return nil
}

// list renders a bullet or ordered list, the items' text aligned after
// the widest marker.
func (w *gmRender) list(l *ast.List, width, depth int) []string {
	var marks []string
	mw := 0
	num := l.Start
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		m := bullets[depth%len(bullets)]
		if l.IsOrdered() {
			m = fmt.Sprintf("%d%c", num, l.Marker)
			num++
		}
		marks = append(marks, m)
		mw = max(mw, ansi.StringWidth(m))
	}
	mw++
	var out []string
	i := 0
	for it := l.FirstChild(); it != nil; it, i = it.NextSibling(), i+1 {
		var body []string
		for c := it.FirstChild(); c != nil; c = c.NextSibling() {
			ls := w.block(c, width-mw, depth+1, c == it.FirstChild())
			if len(ls) == 0 {
				continue
			}
			if !l.IsTight && len(body) > 0 {
				body = append(body, "")
			}
			body = append(body, ls...)
		}
		if !l.IsTight && i > 0 {
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

// code renders a code block: its own colour, two cells of indent, tabs
// as spaces, and long lines broken at a space where one is near.
func (w *gmRender) code(n ast.Node, width int) []string {
	segs := n.Lines()
	cw := max(width-2, 8)
	var out []string
	for i := 0; i < segs.Len(); i++ {
		l := strings.TrimRight(string(gmSegValue(segs, i, w.src)), "\r\n")
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

// segValue is line i of a block's source.
func gmSegValue(segs *text.Segments, i int, src []byte) []byte {
	s := segs.At(i)
	return s.Value(src)
}

// inline collects the inline content of n as spans.
func (w *gmRender) inline(n ast.Node, st styleBits, link string, out []span) []span {
	plain := w.th.plain
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			out = append(out, span{text: w.text(c.Segment.Value(w.src), c.IsRaw()), st: st, link: link})
			switch {
			case c.HardLineBreak():
				out = append(out, span{text: "\n"})
			case c.SoftLineBreak():
				out = append(out, span{text: " ", st: st, link: link})
			}
		case *ast.String:
			out = append(out, span{text: w.text(c.Value, c.IsRaw()), st: st, link: link})
		case *ast.CodeSpan:
			var b strings.Builder
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				switch t := t.(type) {
				case *ast.Text:
					b.Write(t.Segment.Value(w.src))
					if t.SoftLineBreak() {
						b.WriteByte(' ')
					}
				case *ast.String:
					b.Write(t.Value)
				}
			}
			out = append(out, span{text: b.String(), st: st | sCode, link: link})
		case *ast.Emphasis:
			bit, mark := sItalic, "*"
			if c.Level >= 2 {
				bit, mark = sBold, "**"
			}
			out = w.marked(c, mark, plain, st|bit, link, out)
		case *strikeNode:
			out = w.marked(c, "~~", plain, st|sStrike, link, out)
		case *ast.Link:
			dest := string(c.Destination)
			from := len(out)
			out = w.inline(c, st|sLink, dest, out)
			var label strings.Builder
			for _, s := range out[from:] {
				label.WriteString(s.text)
			}
			if dest != "" && label.String() != dest {
				out = append(out, span{text: " ", st: st}, span{text: "(" + dest + ")", st: st | sURL, link: dest})
			}
		case *ast.AutoLink:
			u := string(c.URL(w.src))
			out = append(out, span{text: string(c.Label(w.src)), st: st | sLink, link: u})
		case *ast.Image:
			out = append(out, span{text: "[image: ", st: st | sDim})
			out = w.inline(c, st|sDim, "", out)
			out = append(out, span{text: "]", st: st | sDim})
			if d := string(c.Destination); d != "" {
				out = append(out, span{text: " ", st: st}, span{text: "(" + d + ")", st: st | sURL, link: d})
			}
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				s := c.Segments.At(i)
				out = append(out, span{text: strings.ReplaceAll(string(s.Value(w.src)), "\n", " "), st: st | sDim})
			}
		default:
			out = w.inline(c, st, link, out)
		}
	}
	return out
}

// marked renders emphasis: its style in colour, its markdown markers
// when plain (there is no other way to show it).
func (w *gmRender) marked(n ast.Node, mark string, plain bool, st styleBits, link string, out []span) []span {
	if plain {
		out = append(out, span{text: mark, st: st, link: link})
	}
	out = w.inline(n, st, link, out)
	if plain {
		out = append(out, span{text: mark, st: st, link: link})
	}
	return out
}

// text resolves backslash escapes and entities in a text segment.
func (w *gmRender) text(v []byte, raw bool) string {
	if !raw {
		if bytes.IndexByte(v, '\\') >= 0 {
			v = util.UnescapePunctuations(v)
		}
		if bytes.IndexByte(v, '&') >= 0 {
			v = util.ResolveEntityNames(util.ResolveNumericReferences(v))
		}
	}
	return string(v)
}

// table renders a paragraph that is a GFM pipe table — a header row, a
// delimiter row such as |---|:--:|, then body rows — with columns fitted
// to width (cells wrap); nil when the paragraph is not a table.
// CommonMark parses a table as one paragraph, so the rows are its lines.
func (w *gmRender) table(n ast.Node, width int) []string {
	segs := n.Lines()
	if segs.Len() < 2 {
		return nil
	}
	row := func(i int) string { return strings.TrimSpace(string(gmSegValue(segs, i, w.src))) }
	delim := row(1)
	if !strings.Contains(delim, "|") && !strings.Contains(row(0), "|") {
		return nil
	}
	aligns := parseAligns(splitRow(delim))
	head := splitRow(row(0))
	if aligns == nil || len(head) != len(aligns) {
		return nil
	}
	rows := [][]string{head}
	for i := 2; i < segs.Len(); i++ {
		rows = append(rows, splitRow(row(i)))
	}
	cols := len(aligns)
	cells := make([][][]span, len(rows))
	natural := make([]int, cols)
	for r, cs := range rows {
		cells[r] = make([][]span, cols)
		for c := 0; c < cols && c < len(cs); c++ {
			cells[r][c] = w.cell(cs[c], r == 0)
			natural[c] = max(natural[c], spansWidth(cells[r][c]))
		}
	}
	widths := fitColumns(natural, width-3*(cols-1))
	if sum(widths)+3*(cols-1) > width {
		return nil // too many columns for the width: shown as text
	}
	sep := w.th.paint(" │ ", sDim)
	var out []string
	for r := range cells {
		wrapped := make([][]string, cols)
		h := 1
		for c := range cols {
			wrapped[c] = w.wrap(cells[r][c], widths[c])
			h = max(h, len(wrapped[c]))
		}
		for k := range h {
			var b strings.Builder
			for c := range cols {
				if c > 0 {
					b.WriteString(sep)
				}
				cell := ""
				if k < len(wrapped[c]) {
					cell = wrapped[c][k]
				}
				b.WriteString(alignCell(cell, widths[c], aligns[c]))
			}
			out = append(out, strings.TrimRight(b.String(), " "))
		}
		if r == 0 {
			parts := make([]string, cols)
			for c, wd := range widths {
				parts[c] = strings.Repeat("─", wd)
			}
			out = append(out, w.th.paint(strings.Join(parts, "─┼─"), sDim))
		}
	}
	return out
}

// cell parses one cell's inline markdown (bold in the header row).
func (w *gmRender) cell(s string, head bool) []span {
	var st styleBits
	if head {
		st = sBold
	}
	if s == "" {
		return nil
	}
	src := []byte(s)
	p := w.r.p.Parse(text.NewReader(src)).FirstChild()
	if p == nil || p.Kind() != ast.KindParagraph || p.NextSibling() != nil {
		return []span{{text: s, st: st}} // "# x" or "- x" in a cell is text
	}
	sub := gmRender{mdRender: mdRender{th: w.th}, src: src, r: w.r}
	return sub.inline(p, st, "", nil)
}

// newMarkdownParser is goldmark's CommonMark parser plus GFM
// strikethrough. Only the core packages are linked (ast, parser, text,
// util): goldmark/extension and the HTML renderer carry init-time tables
// that every start of the binary would pay for. Pipe tables and task list
// markers are recognised by the renderer (mdtable.go, mdrender.go).
func newMarkdownParser() parser.Parser {
	inline := append(parser.DefaultInlineParsers(), util.Prioritized(strikeParser{}, 500))
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(inline...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
}

// kindStrike identifies strikethrough spans (~~text~~) in the AST.
var kindStrike = ast.NewNodeKind("Strikethrough")

// strikeNode is a ~~strikethrough~~ span.
type strikeNode struct{ ast.BaseInline }

func (n *strikeNode) Kind() ast.NodeKind { return kindStrike }

func (n *strikeNode) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// strikeDelims pairs ~~ openers with ~~ closers.
type strikeDelims struct{}

func (strikeDelims) IsDelimiter(b byte) bool { return b == '~' }
func (strikeDelims) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}
func (strikeDelims) OnMatch(int) ast.Node { return &strikeNode{} }

// strikeParser finds runs of exactly two tildes and leaves the pairing to
// goldmark's delimiter processing (the same rules as emphasis).
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 2, strikeDelims{})
	if d == nil || d.OriginalLength != 2 {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}
