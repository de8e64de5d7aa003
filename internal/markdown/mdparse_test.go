package markdown

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark/text"
)

// specExample is one example of the CommonMark spec (its Markdown only).
type specExample struct {
	Example  int    `json:"example"`
	Section  string `json:"section"`
	Markdown string `json:"markdown"`
}

func loadSpec(t testing.TB) []specExample {
	b, err := os.ReadFile(filepath.Join("testdata", "markdown", "commonmark-spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex []specExample
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	return ex
}

// specDiffers lists the spec examples where our rendering differs from
// the goldmark pipeline's on purpose, with the reason.
var specDiffers = map[int]string{
	// goldmark's pipeline unescaped first and resolved entities after:
	// "\&ouml;" became "ö"; CommonMark keeps an escaped & literal.
	14: "an escaped & does not start an entity",
	// A code span's line endings are spaces (CommonMark 6.1); the
	// goldmark pipeline printed them as line breaks.
	335: "line endings in a code span are spaces",
	337: "line endings in a code span are spaces",
	640: "line endings in a code span are spaces",
	641: "line endings in a code span are spaces",
}

// answerDiffers lists the corpus answers (file: reason) that differ.
var answerDiffers = map[string]string{}

// renderBoth renders src with the goldmark pipeline and with ours, in
// plain and colour, at a narrow and a wide width; it returns the first
// difference ("" if none).
func renderBoth(src string) (diff string) {
	for _, plain := range []bool{true, false} {
		for _, width := range []int{40, 100} {
			old := strings.Join(newGMRenderers(plain, true).render(src, width), "\n")
			got := strings.Join(NewTerminal(plain, true).Render(src, width), "\n")
			if old != got {
				return "plain=" + map[bool]string{true: "yes", false: "no"}[plain] +
					"\ngoldmark:\n" + old + "\nours:\n" + got
			}
		}
	}
	return ""
}

// Differential test: every CommonMark spec example renders as it did
// with goldmark as the parser, but for the differences listed.
func TestMarkdownParserMatchesGoldmarkOnSpec(t *testing.T) {
	failed := 0
	for _, ex := range loadSpec(t) {
		diff := renderBoth(ex.Markdown)
		reason, listed := specDiffers[ex.Example]
		switch {
		case diff != "" && !listed:
			failed++
			t.Errorf("spec example %d (%s) %q:\n%s", ex.Example, ex.Section, ex.Markdown, diff)
		case diff == "" && listed:
			t.Errorf("spec example %d is listed as differing (%s) but renders the same: drop it from the list", ex.Example, reason)
		}
	}
	if failed > 0 {
		t.Logf("%d examples differ", failed)
	}
}

// Differential test on realistic answers (testdata/markdown/answers).
func TestMarkdownParserMatchesGoldmarkOnAnswers(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "markdown", "answers", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus answers: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		diff := renderBoth(string(b))
		reason, listed := answerDiffers[name]
		switch {
		case diff != "" && !listed:
			t.Errorf("%s:\n%s", name, diff)
		case diff == "" && listed:
			t.Errorf("%s is listed as differing (%s) but renders the same", name, reason)
		}
	}
}

// answerCorpus is the realistic answers, concatenated.
func answerCorpus(t testing.TB) string {
	files, err := filepath.Glob(filepath.Join("testdata", "markdown", "answers", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus answers: %v", err)
	}
	var b strings.Builder
	for _, f := range files {
		s, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(s)
		b.WriteString("\n")
	}
	return b.String()
}

// Where our parser differs from the goldmark pipeline on purpose: what
// it renders (plain, 40 cells) and why.
func TestMarkdownParserDeliberateDifferences(t *testing.T) {
	cases := []struct {
		src, want, why string
	}{
		{"a ~~~b~~~ c", "  a ~~~b~~~ c",
			"a run of three tildes is text (GFM); goldmark took its last two as a delimiter: ~<del>b~</del>"},
		{`\&amp; x`, "  &amp; x",
			"an escaped & starts no entity; the goldmark pipeline unescaped first, then resolved entities"},
		{"`a\nb`", "  a b",
			"a code span's line ending is a space (CommonMark 6.1); the goldmark pipeline broke the line"},
		{"[x]\n\n[x]: (a", "  [x]\n\n  [x]: (a",
			"a destination's parentheses must balance (CommonMark 4.7); goldmark accepted (a"},
		{"<!doctype html>", "  <!doctype html>",
			"<! and a lower-case letter starts an HTML block (CommonMark 0.31); goldmark wanted upper case"},
		{"</ a>\nb", "  </ a> b",
			"no white space after </ in a closing tag (CommonMark 6.6); goldmark took it for an HTML block"},
		{"a\\\\\\\nb", "  a\\\n  b",
			"an escaped backslash, then a backslash hard break; goldmark saw two backslashes before the line end as no break"},
		{"+ \n  * a", "  • ◦ a",
			"an item that starts empty continues on a line indented to its content (CommonMark 5.2, as cmark does)"},
		{"* * \tx", "  • ◦   x",
			"CommonMark's tab stops: the tab after the inner marker leaves four columns, an indented code block"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			if got := renderPlain(c.src, 40); got != c.want {
				t.Errorf("render(%q):\n%s\nwant:\n%s", c.src, got, c.want)
			}
			if renderBoth(c.src) == "" {
				t.Errorf("%q renders as goldmark did: not a difference (%s)", c.src, c.why)
			}
		})
	}
}

// checkTree fails when the tree's links are inconsistent or a node is
// where the renderer does not expect it.
func checkTree(t *testing.T, n *mdNode, src string) {
	t.Helper()
	var prev *mdNode
	for c := n.first; c != nil; c = c.next {
		if c.parent != n || c.prev != prev {
			t.Fatalf("bad links under %v in %q", n.kind, src)
		}
		inlineParent := n.kind == mdParagraph || n.kind == mdHeading || !n.isBlock()
		switch {
		case n.kind == mdList && c.kind != mdItem,
			n.kind != mdList && c.kind == mdItem,
			inlineParent && c.isBlock(),
			!inlineParent && !c.isBlock():
			t.Fatalf("%v under %v in %q", c.kind, n.kind, src)
		}
		checkTree(t, c, src)
		prev = c
	}
	if n.last != prev {
		t.Fatalf("bad last child of %v in %q", n.kind, src)
	}
}

// The parser takes any text: it never panics, ends, and builds a
// consistent tree; and the renderer draws it without an escape in plain
// mode. (Run with -fuzz; the seeds run in every go test.)
func FuzzMarkdownParse(f *testing.F) {
	for _, ex := range loadSpec(f) {
		f.Add(ex.Markdown)
	}
	f.Add(answerCorpus(f))
	f.Fuzz(func(t *testing.T, src string) {
		doc := parseMarkdown(src)
		if doc.kind != mdDocument || doc.parent != nil {
			t.Fatalf("root is %v", doc.kind)
		}
		checkTree(t, doc, src)
		for _, l := range NewTerminal(true, true).Render(src, 30) {
			if strings.ContainsRune(l, '\x1b') {
				t.Fatalf("escape in plain output %q from %q", l, src)
			}
		}
	})
}

// Inputs that make a naive parser quadratic stay fast: each is parsed
// in one pass, whatever the length (compare the ns/op of the sizes).
func BenchmarkMarkdownParsePathological(b *testing.B) {
	for _, c := range []struct{ name, unit string }{
		{"backticks", "` `` "},
		{"brackets", "[a "},
		{"emphasis", "*a _b "},
		{"nested quotes", ">"},
		{"nested lists", "- "},
		{"links", "[a](b "},
	} {
		for _, n := range []int{1 << 10, 1 << 13} {
			src := strings.Repeat(c.unit, n/len(c.unit))
			b.Run(c.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				for b.Loop() {
					parseMarkdown(src)
				}
			})
		}
	}
}

// sizedAnswer is the answer corpus repeated and cut to n bytes.
func sizedAnswer(t testing.TB, n int) string {
	c := answerCorpus(t)
	return strings.Repeat(c, n/len(c)+1)[:n]
}

// Parsing a 20 KB answer: ours against goldmark's (the parse alone, and
// the whole render).
func BenchmarkMarkdownParse20K(b *testing.B) {
	src := sizedAnswer(b, 20<<10)
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			parseMarkdown(src)
		}
	})
	b.Run("goldmark", func(b *testing.B) {
		p := newMarkdownParser()
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			p.Parse(text.NewReader([]byte(src)))
		}
	})
}

func BenchmarkMarkdownRender20K(b *testing.B) {
	src := sizedAnswer(b, 20<<10)
	b.Run("ours", func(b *testing.B) {
		r := NewTerminal(false, true)
		b.ReportAllocs()
		for b.Loop() {
			r.Render(src, 100)
		}
	})
	b.Run("goldmark", func(b *testing.B) {
		r := newGMRenderers(false, true)
		b.ReportAllocs()
		for b.Loop() {
			r.render(src, 100)
		}
	})
}

// renderPlain renders src without colour at width and joins the lines.
func renderPlain(src string, width int) string {
	return strings.Join(NewTerminal(true, true).Render(src, width), "\n")
}
