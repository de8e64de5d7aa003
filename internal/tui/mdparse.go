package tui

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

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
