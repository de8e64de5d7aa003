package markdown

import (
	"strings"
)

// The block parser follows the CommonMark algorithm (spec 0.31, appendix
// "A parsing strategy"): each line first continues the open blocks it
// matches, then may start new ones, and what is left is added to the
// innermost open leaf (or lazily to an open paragraph). Inline content is
// parsed once the blocks are closed (mdinline.go).

// blockState is the parse state of a block.
type blockState struct {
	open               bool
	startLine, endLine int
	fenced             bool
	fenceChar          byte
	fenceLen           int
	fenceOffset        int
	htmlType           int
	bullet             byte // list item: the bullet, 0 for ordered
	delim              byte // list item: '.' or ')' for ordered
	markerOffset       int
	padding            int
}

// mdRef is a link reference definition.
type mdRef struct{ dest, title string }

// blockParser holds the state of one parse.
type blockParser struct {
	doc, tip, oldtip, lastMatched *mdNode

	line                 string
	lineNum              int
	offset, column       int
	nextNonspace         int
	nextNonspaceColumn   int
	indent               int
	indented, blank      bool
	partialTab           bool
	allClosed            bool
	refs                 map[string]mdRef
	paragraphs, headings []*mdNode // leaves whose inline content is parsed at the end
}

// parseMarkdown parses src into a document tree.
func parseMarkdown(src string) *mdNode {
	p := &blockParser{}
	p.doc = newBlock(mdDocument, 1)
	p.tip, p.oldtip, p.lastMatched, p.allClosed = p.doc, p.doc, p.doc, true
	for len(src) > 0 {
		nl := strings.IndexByte(src, '\n')
		var line string
		if nl < 0 {
			line, src = src, ""
		} else {
			line, src = src[:nl], src[nl+1:]
		}
		p.incorporate(strings.TrimSuffix(line, "\r"))
	}
	for p.tip != nil {
		p.finalize(p.tip, p.lineNum)
	}
	ip := inlineParser{refs: p.refs}
	for _, n := range p.paragraphs {
		ip.parse(n, strings.Trim(strings.Join(n.lines, "\n"), " \t\n"))
	}
	for _, n := range p.headings {
		ip.parse(n, n.text)
		n.text = ""
	}
	return p.doc
}

func (p *blockParser) peek(i int) byte {
	if i < len(p.line) {
		return p.line[i]
	}
	return 0
}

func (p *blockParser) findNextNonspace() {
	i, cols := p.offset, p.column
	for i < len(p.line) {
		c := p.line[i]
		if c == ' ' {
			i++
			cols++
		} else if c == '\t' {
			i++
			cols += 4 - cols%4
		} else {
			break
		}
	}
	p.blank = i >= len(p.line)
	p.nextNonspace, p.nextNonspaceColumn = i, cols
	p.indent = cols - p.column
	p.indented = p.indent >= 4
}

func (p *blockParser) advanceNextNonspace() {
	p.offset, p.column, p.partialTab = p.nextNonspace, p.nextNonspaceColumn, false
}

// advanceOffset moves count characters (columns: count columns, where a
// tab may be consumed in part) along the line.
func (p *blockParser) advanceOffset(count int, columns bool) {
	for count > 0 && p.offset < len(p.line) {
		if p.line[p.offset] == '\t' {
			toTab := 4 - p.column%4
			if columns {
				p.partialTab = toTab > count
				adv := min(toTab, count)
				p.column += adv
				if !p.partialTab {
					p.offset++
				}
				count -= adv
			} else {
				p.partialTab = false
				p.column += toTab
				p.offset++
				count--
			}
		} else {
			p.partialTab = false
			p.offset++
			p.column++
			count--
		}
	}
}

func isSpaceOrTab(c byte) bool { return c == ' ' || c == '\t' }

// addLine adds the rest of the line to the tip.
func (p *blockParser) addLine() {
	rest := p.line[min(p.offset, len(p.line)):]
	if p.partialTab {
		p.offset++
		rest = strings.Repeat(" ", 4-p.column%4) + p.line[min(p.offset, len(p.line)):]
	}
	p.tip.lines = append(p.tip.lines, rest)
}

// addChild opens a block of kind at the tip, closing blocks that cannot
// hold it.
func (p *blockParser) addChild(kind mdKind) *mdNode {
	for !canContain(p.tip.kind, kind) {
		p.finalize(p.tip, p.lineNum-1)
	}
	n := newBlock(kind, p.lineNum)
	p.tip.appendChild(n)
	p.tip = n
	return n
}

// blockNode is a block with its parse state, allocated together.
type blockNode struct {
	n  mdNode
	st blockState
}

// newBlock is an open block of kind starting on line.
func newBlock(kind mdKind, line int) *mdNode {
	b := &blockNode{n: mdNode{kind: kind}, st: blockState{open: true, startLine: line}}
	b.n.b = &b.st
	return &b.n
}

func canContain(parent, child mdKind) bool {
	switch parent {
	case mdDocument, mdBlockquote, mdItem:
		return child != mdItem
	case mdList:
		return child == mdItem
	}
	return false
}

func acceptsLines(k mdKind) bool {
	return k == mdParagraph || k == mdCodeBlock || k == mdHTMLBlock
}

func (p *blockParser) closeUnmatched() {
	if p.allClosed {
		return
	}
	for p.oldtip != p.lastMatched {
		parent := p.oldtip.parent
		p.finalize(p.oldtip, p.lineNum-1)
		p.oldtip = parent
	}
	p.allClosed = true
}

// incorporate parses one line.
func (p *blockParser) incorporate(line string) {
	p.line, p.lineNum = line, p.lineNum+1
	p.offset, p.column, p.blank, p.partialTab = 0, 0, false, false
	p.oldtip = p.tip
	container := p.doc
	for {
		c := container.last
		if c == nil || c.b == nil || !c.b.open {
			break
		}
		p.findNextNonspace()
		r := p.continues(c)
		if r == 2 {
			return
		}
		if r == 1 {
			break
		}
		container = c
	}
	p.allClosed = container == p.oldtip
	p.lastMatched = container
	matchedLeaf := container.kind != mdParagraph && acceptsLines(container.kind)
	for !matchedLeaf {
		p.findNextNonspace()
		if !p.indented && !maySpecial(p.peek(p.nextNonspace)) {
			p.advanceNextNonspace()
			break
		}
		res := p.start(container)
		if res == 0 {
			p.advanceNextNonspace()
			break
		}
		container = p.tip
		if res == 2 {
			break
		}
	}
	if !p.allClosed && !p.blank && p.tip.kind == mdParagraph {
		p.addLine() // lazy continuation
		return
	}
	p.closeUnmatched()
	switch {
	case acceptsLines(container.kind):
		p.addLine()
		if container.kind == mdHTMLBlock && container.b.htmlType >= 1 && container.b.htmlType <= 5 &&
			htmlBlockEnds(container.b.htmlType, p.line[min(p.offset, len(p.line)):]) {
			p.finalize(container, p.lineNum)
		}
	case p.offset < len(p.line) && !p.blank:
		p.addChild(mdParagraph)
		p.advanceNextNonspace()
		p.addLine()
	}
}

// maySpecial says whether a line starting with c may start a block.
func maySpecial(c byte) bool {
	switch c {
	case '#', '`', '~', '*', '+', '_', '=', '<', '>', '-':
		return true
	}
	return c >= '0' && c <= '9'
}

// continues says whether the open block n goes on on this line: 0 yes,
// 1 no, 2 the line is used up (a closing fence).
func (p *blockParser) continues(n *mdNode) int {
	switch n.kind {
	case mdDocument, mdList:
		return 0
	case mdBlockquote:
		if !p.indented && p.peek(p.nextNonspace) == '>' {
			p.advanceNextNonspace()
			p.advanceOffset(1, false)
			if isSpaceOrTab(p.peek(p.offset)) {
				p.advanceOffset(1, true)
			}
			return 0
		}
		return 1
	case mdItem:
		if p.blank {
			if n.first == nil {
				return 1
			}
			p.advanceNextNonspace()
			return 0
		}
		if p.indent >= n.b.markerOffset+n.b.padding {
			p.advanceOffset(n.b.markerOffset+n.b.padding, true)
			return 0
		}
		return 1
	case mdCodeBlock:
		if n.b.fenced {
			if !p.indented && p.peek(p.nextNonspace) == n.b.fenceChar {
				if k := closingFence(p.line[p.nextNonspace:], n.b.fenceChar); k >= n.b.fenceLen {
					p.finalize(n, p.lineNum)
					return 2
				}
			}
			for i := n.b.fenceOffset; i > 0 && isSpaceOrTab(p.peek(p.offset)); i-- {
				p.advanceOffset(1, true)
			}
			return 0
		}
		if p.indent >= 4 {
			p.advanceOffset(4, true)
		} else if p.blank {
			p.advanceNextNonspace()
		} else {
			return 1
		}
		return 0
	case mdHTMLBlock:
		if p.blank && (n.b.htmlType == 6 || n.b.htmlType == 7) {
			return 1
		}
		return 0
	case mdParagraph:
		if p.blank {
			return 1
		}
		return 0
	}
	return 1
}

// closingFence is the length of a closing fence of c at the start of s
// (followed by spaces only), else 0.
func closingFence(s string, c byte) int {
	k := 0
	for k < len(s) && s[k] == c {
		k++
	}
	if k < 3 || strings.Trim(s[k:], " \t") != "" {
		return 0
	}
	return k
}

// start tries the block starts at this point of the line: 0 none, 1 a
// container was opened, 2 a leaf was.
func (p *blockParser) start(container *mdNode) int {
	rest := p.line[p.nextNonspace:]
	c := p.peek(p.nextNonspace)
	if !p.indented {
		switch c {
		case '>':
			p.advanceNextNonspace()
			p.advanceOffset(1, false)
			if isSpaceOrTab(p.peek(p.offset)) {
				p.advanceOffset(1, true)
			}
			p.closeUnmatched()
			p.addChild(mdBlockquote)
			return 1
		case '#':
			if level, text, ok := atxHeading(rest); ok {
				p.advanceNextNonspace()
				p.closeUnmatched()
				h := p.addChild(mdHeading)
				h.level, h.text = level, text
				p.headings = append(p.headings, h)
				p.offset = len(p.line)
				return 2
			}
		case '`', '~':
			if n := openingFence(rest); n > 0 {
				p.closeUnmatched()
				b := p.addChild(mdCodeBlock)
				b.b.fenced, b.b.fenceChar, b.b.fenceLen, b.b.fenceOffset = true, c, n, p.indent
				p.advanceNextNonspace()
				p.advanceOffset(n, false)
				return 2
			}
		case '<':
			if t := htmlBlockStart(rest, container.kind == mdParagraph || !p.allClosed && !p.blank && p.tip.kind == mdParagraph); t > 0 {
				p.closeUnmatched()
				b := p.addChild(mdHTMLBlock)
				b.b.htmlType = t
				return 2
			}
		}
		if container.kind == mdParagraph && (c == '=' || c == '-') {
			if level := setextLevel(rest); level > 0 {
				p.closeUnmatched()
				if p.resolveRefs(container) {
					h := newBlock(mdHeading, container.b.startLine)
					h.level, h.b.open = level, false
					h.text = strings.Trim(strings.Join(container.lines, "\n"), " \t\n")
					container.insertAfter(h)
					container.unlink()
					h.b.endLine = p.lineNum
					p.headings = append(p.headings, h)
					p.tip = h.parent
					p.offset = len(p.line)
					return 2
				}
			}
		}
		if thematicBreak(rest) {
			p.closeUnmatched()
			p.addChild(mdThematicBreak)
			p.offset = len(p.line)
			return 2
		}
	}
	if !p.indented || container.kind == mdList {
		if p.listItem(container) {
			return 1
		}
	}
	if p.indented && p.tip.kind != mdParagraph && !p.blank {
		p.advanceOffset(4, true)
		p.closeUnmatched()
		p.addChild(mdCodeBlock)
		return 2
	}
	return 0
}

// atxHeading parses "## text ##".
func atxHeading(s string) (level int, text string, ok bool) {
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level < len(s) && !isSpaceOrTab(s[level]) {
		return 0, "", false
	}
	text = strings.Trim(s[level:], " \t")
	// A closing sequence of #s, preceded by a space (or alone).
	t := strings.TrimRight(text, "#")
	if t == "" {
		text = ""
	} else if len(t) < len(text) && isSpaceOrTab(t[len(t)-1]) {
		text = strings.TrimRight(t, " \t")
	}
	return level, text, true
}

// openingFence is the length of the fence that opens a code block at
// the start of s, else 0 (a backtick fence's info has no backtick).
func openingFence(s string) int {
	c := s[0]
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 3 || c == '`' && strings.IndexByte(s[n:], '`') >= 0 {
		return 0
	}
	return n
}

// setextLevel is 1 for a "===" underline, 2 for "---", else 0.
func setextLevel(s string) int {
	c := s[0]
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if strings.Trim(s[n:], " \t") != "" {
		return 0
	}
	if c == '=' {
		return 1
	}
	return 2
}

// thematicBreak says whether s is three or more of one of * - _ with
// spaces or tabs between.
func thematicBreak(s string) bool {
	c := s[0]
	if c != '*' && c != '-' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// listItem tries to open a list item (and its list) here.
func (p *blockParser) listItem(container *mdNode) bool {
	if p.indent >= 4 {
		return false
	}
	rest := p.line[p.nextNonspace:]
	var bullet, delim byte
	start, markerLen := 0, 0
	switch c := rest[0]; {
	case c == '*' || c == '+' || c == '-':
		bullet, markerLen = c, 1
	case c >= '0' && c <= '9':
		for markerLen < len(rest) && markerLen < 10 && rest[markerLen] >= '0' && rest[markerLen] <= '9' {
			start = start*10 + int(rest[markerLen]-'0')
			markerLen++
		}
		if markerLen > 9 || markerLen >= len(rest) || rest[markerLen] != '.' && rest[markerLen] != ')' {
			return false
		}
		if container.kind == mdParagraph && start != 1 {
			return false
		}
		delim = rest[markerLen]
		markerLen++
	default:
		return false
	}
	if markerLen < len(rest) && !isSpaceOrTab(rest[markerLen]) {
		return false
	}
	if container.kind == mdParagraph && strings.Trim(rest[markerLen:], " \t") == "" {
		return false // an empty item cannot interrupt a paragraph
	}
	markerOffset := p.indent
	p.advanceNextNonspace()
	p.advanceOffset(markerLen, true)
	startCol, startOff := p.column, p.offset
	for {
		p.advanceOffset(1, true)
		if p.column-startCol >= 5 || !isSpaceOrTab(p.peek(p.offset)) {
			break
		}
	}
	blankItem := p.offset >= len(p.line)
	spaces := p.column - startCol
	padding := markerLen + spaces
	if spaces >= 5 || spaces < 1 || blankItem {
		padding = markerLen + 1
		p.column, p.offset, p.partialTab = startCol, startOff, false
		if isSpaceOrTab(p.peek(p.offset)) {
			p.advanceOffset(1, true)
		}
	}
	p.closeUnmatched()
	if p.tip.kind != mdList || p.tip.last == nil || p.tip.last.b.bullet != bullet || p.tip.last.b.delim != delim {
		l := p.addChild(mdList)
		l.ordered, l.start, l.tight = bullet == 0, start, true
		l.marker = bullet
		if bullet == 0 {
			l.marker = delim
		}
	}
	it := p.addChild(mdItem)
	it.b.bullet, it.b.delim, it.b.markerOffset, it.b.padding = bullet, delim, markerOffset, padding
	return true
}

// finalize closes block n, which ends on line end.
func (p *blockParser) finalize(n *mdNode, end int) {
	above := n.parent
	n.b.open = false
	n.b.endLine = end
	switch n.kind {
	case mdParagraph:
		if p.resolveRefs(n) {
			p.paragraphs = append(p.paragraphs, n)
		} else {
			n.unlink()
		}
	case mdCodeBlock:
		if n.b.fenced {
			n.text = ""
			if len(n.lines) > 0 {
				n.text = strings.TrimSpace(n.lines[0]) // the info string
				n.lines = n.lines[1:]
			}
		} else {
			for len(n.lines) > 0 && strings.Trim(n.lines[len(n.lines)-1], " \t") == "" {
				n.lines = n.lines[:len(n.lines)-1]
			}
			// Trailing blank lines are not the block's: they may
			// make a list loose.
			n.b.endLine = n.b.startLine + max(len(n.lines), 1) - 1
		}
	case mdItem:
		if n.last != nil {
			n.b.endLine = n.last.b.endLine
		} else {
			n.b.endLine = n.b.startLine
		}
	case mdList:
		n.b.endLine = n.last.b.endLine
		for it := n.first; it != nil && n.tight; it = it.next {
			if it.next != nil && endsWithBlank(it) {
				n.tight = false
			}
			for c := it.first; c != nil; c = c.next {
				if c.next != nil && endsWithBlank(c) {
					n.tight = false
				}
			}
		}
	}
	p.tip = above
}

// endsWithBlank says whether a blank line separates n from its next
// sibling.
func endsWithBlank(n *mdNode) bool {
	return n.next != nil && n.b.endLine < n.next.b.startLine-1
}

// resolveRefs takes the link reference definitions off the start of a
// paragraph; false if nothing else is left.
func (p *blockParser) resolveRefs(n *mdNode) bool {
	if len(n.lines) == 0 || !strings.HasPrefix(strings.TrimLeft(n.lines[0], " \t"), "[") {
		return len(n.lines) > 0
	}
	s := strings.Join(n.lines, "\n")
	used := 0
	for {
		k, label, ref := parseRefDef(s[used:])
		if k == 0 {
			break
		}
		if p.refs == nil {
			p.refs = map[string]mdRef{}
		}
		if _, dup := p.refs[label]; !dup {
			p.refs[label] = ref
		}
		used += k
	}
	if used == 0 {
		return true
	}
	rest := s[used:]
	if strings.TrimSpace(rest) == "" {
		n.lines = nil
		return false
	}
	n.lines = strings.Split(rest, "\n")
	return true
}
