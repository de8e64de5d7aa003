package markdown

// The Markdown syntax tree the renderer walks. The parser (mdblock.go,
// mdinline.go) builds it; it covers the CommonMark subset a model's
// answers use plus GFM strikethrough. Pipe tables and task list markers
// stay paragraphs and text: the renderer recognises them (mdtable.go,
// mdrender.go).

// mdKind is the type of a node.
type mdKind uint8

const (
	mdDocument mdKind = iota
	mdParagraph
	mdHeading       // level
	mdThematicBreak //
	mdCodeBlock     // lines (fenced or indented)
	mdBlockquote
	mdList // ordered, start, marker, tight
	mdItem
	mdHTMLBlock // lines

	mdText     // text (escapes and entities resolved); soft, hard
	mdCodeSpan // text
	mdEmphasis // level 1 (em) or 2 (strong)
	mdStrike
	mdLink     // dest
	mdImage    // dest; children are the description
	mdAutoLink // text (the address)
	mdRawHTML  // text
)

// mdNode is a node of the tree. Fields beyond kind and the links are
// used by the kinds noted above; the block parser's own state is kept in
// a separate struct (b, nil for inline nodes) so the tree stays small.
type mdNode struct {
	kind                      mdKind
	parent, first, last, next *mdNode
	prev                      *mdNode

	level   int      // heading level; emphasis level
	lines   []string // paragraph (raw, for tables), code and HTML lines
	text    string
	dest    string // link and image destination, as written
	soft    bool   // a soft line break follows the text
	hard    bool   // a hard line break follows the text
	ordered bool
	tight   bool
	marker  byte // list delimiter ('.' or ')') or bullet
	start   int  // ordered list start number

	b *blockState // the block parser's state (nil for inline nodes)
}

// appendChild adds c as the last child of n.
func (n *mdNode) appendChild(c *mdNode) {
	c.parent, c.next, c.prev = n, nil, n.last
	if n.last != nil {
		n.last.next = c
	} else {
		n.first = c
	}
	n.last = c
}

// unlink removes n from its parent.
func (n *mdNode) unlink() {
	if n.prev != nil {
		n.prev.next = n.next
	} else if n.parent != nil {
		n.parent.first = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else if n.parent != nil {
		n.parent.last = n.prev
	}
	n.parent, n.next, n.prev = nil, nil, nil
}

// insertAfter puts c right after n under n's parent.
func (n *mdNode) insertAfter(c *mdNode) {
	c.parent, c.prev, c.next = n.parent, n, n.next
	if n.next != nil {
		n.next.prev = c
	} else if n.parent != nil {
		n.parent.last = c
	}
	n.next = c
}

// isBlock says whether n is a block (not inline) node.
func (n *mdNode) isBlock() bool { return n.kind < mdText }
