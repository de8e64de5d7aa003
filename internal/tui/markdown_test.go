package tui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// renderPlain renders src without colour at width and joins the lines.
func renderPlain(src string, width int) string {
	return strings.Join(newRenderers(true, true).render(src, width), "\n")
}

// Each markdown element, rendered without colour at 40 cells (a text
// width of 36 after the two-cell margins).
func TestMarkdownElements(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"heading", "## Section *two*", "  ## Section *two*"},
		{"setext heading", "Title\n=====", "  # Title"},
		{"paragraph joins soft breaks", "one\ntwo  \nthree", "  one two\n  three"},
		{"emphasis, strong, strike", "a *b* **c** ~~d~~ ~e~", "  a *b* **c** ~~d~~ ~e~"},
		{"inline code", "run `go test ./...` now", "  run go test ./... now"},
		{"escapes and entities", `\*not em\* &amp; &#65; &copy;`, "  *not em* & A ©"},
		{"every HTML entity, whole names only", `&AElig; &Dcaron; &ngE; &notit; &nosuch; &amp`, "  Æ Ď ≧̸ &notit; &nosuch; &amp"},
		{"link", "see [the docs](https://example.com/d)", "  see the docs (https://example.com/d)"},
		{"link whose text is its address", "[https://a.b](https://a.b)", "  https://a.b"},
		{"reference link, definition in its own block", "[the docs][d]\n\n[d]: https://e.com", "  the docs (https://e.com)"},
		{"only a definition", "[d]: https://e.com", ""},
		{"autolink", "<https://a.b/c>", "  https://a.b/c"},
		{"image", "![a cat](cat.png)", "  [image: a cat] (cat.png)"},
		{"bullet list, nested", "- one\n- two\n  - inner\n    - deeper", "  • one\n  • two\n    ◦ inner\n      ▪ deeper"},
		{"ordered list keeps its start", "3. three\n4. four", "  3. three\n  4. four"},
		{"ordered list aligns wide markers", "9. nine\n10. ten", "  9.  nine\n  10. ten"},
		{"task list", "- [ ] todo\n- [x] done\n- [link] text", "  • ☐ todo\n  • ☑ done\n  • [link] text"},
		{"loose list", "- a\n\n- b", "  • a\n\n  • b"},
		{"list item with two paragraphs", "1. first\n\n   more", "  1. first\n\n     more"},
		{"block quote", "> quoted\n> > nested", "  │ quoted\n  │\n  │ │ nested"},
		{"thematic break", "---", "  " + strings.Repeat("─", 36)},
		{"fenced code keeps spaces, expands tabs", "```go\nfunc f() {\n\treturn  1\n}\n```", "    func f() {\n        return  1\n    }"},
		{"indented code", "    x := 1\n    y := 2", "    x := 1\n    y := 2"},
		{"unclosed fence while streaming", "```\nstill open", "    still open"},
		{"blocks are separated by a blank line", "# H\ntext\n```\ncode\n```", "  # H\n\n  text\n\n    code"},
		{"html block", "<div>\nhi\n</div>", "  <div>\n  hi\n  </div>"},
		{"control characters are dropped", "bad \x1b[31mred\x1b[m \x07bell", "  bad [31mred[m bell"},
		{"table", "| Name | Qty |\n|------|----:|\n| tea  | 2 |\n| `x\\|y` | 10 |",
			"  Name │ Qty\n  ─────┼────\n  tea  │   2\n  x|y  │  10"},
		{"table aligns center", "a|b\n:-:|-\nlong|x", "   a   │ b\n  ─────┼──\n  long │ x"},
		{"table with short rows", "| a | b |\n|---|---|\n| 1 |", "  a │ b\n  ──┼──\n  1 │"},
		{"not a table: no delimiter row", "a | b\nc | d", "  a | b c | d"},
		{"not a table: cell counts differ", "| a | b |\n|---|\n", "  | a | b | |---|"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := renderPlain(c.src, 40); got != c.want {
				t.Errorf("render(%q):\n%s\nwant:\n%s", c.src, got, c.want)
			}
		})
	}
}

// Lines fit the width; words are whole unless longer than a line.
func TestMarkdownWrapsAtWidth(t *testing.T) {
	para := "The quick brown fox jumps over the lazy dog, and then **the bold dog** chases a `code span` down the road to https://example.com/a/very/long/path/that/cannot/fit."
	long := strings.Repeat("x", 50)
	cases := []struct {
		name  string
		src   string
		width int
	}{
		{"paragraph", para, 30},
		{"paragraph wide", para, 80},
		{"list", "- " + para + "\n  - " + para, 30},
		{"quote", "> " + para, 24},
		{"long word", "a " + long + " b", 20},
		{"code", "```\n" + "if x { return fmt.Sprintf(\"%s-%s\", aVeryLongIdentifierName, anotherLongIdentifier) }\n" + long + "\n```", 30},
		{"table", "| key | value |\n|---|---|\n| a | " + para + " |", 40},
		{"rule", "***", 25},
		{"wide characters", strings.Repeat("日本語のテキスト ", 12) + "🙂🙂🙂", 21},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, plain := range []bool{true, false} {
				lines := newRenderers(plain, true).render(c.src, c.width)
				for _, l := range lines {
					if w := ansi.StringWidth(l); w > c.width-2 {
						t.Errorf("plain=%v: line of %d cells at width %d: %q", plain, w, c.width, ansi.Strip(l))
					}
				}
			}
			got := ansi.Strip(strings.Join(newRenderers(true, true).render(c.src, c.width), " "))
			// Every word of the source survives wrapping, in order.
			flat := strings.Join(strings.Fields(got), "")
			for _, word := range []string{"quick", "lazy", "code", long, "aVeryLongIdentifierName"} {
				if strings.Contains(c.src, word) && !strings.Contains(flat, word) {
					t.Errorf("%q lost in:\n%s", word, got)
				}
			}
		})
	}
	if got := renderPlain("a "+long+" b", 20); got != "  a\n  "+long[:16]+"\n  "+long[16:32]+"\n  "+long[32:48]+"\n  "+long[48:]+" b" {
		t.Errorf("a long word is cut at the width:\n%s", got)
	}
	if got := renderPlain("```\n  call(alpha, beta, gamma, delta)\n```", 24); got != "      call(alpha,\n        beta, gamma,\n        delta)" {
		t.Errorf("a long code line breaks at a space and indents its continuation:\n%q", got)
	}
}

// sgrOpen matches an SGR sequence that sets a style (not the reset).
var sgrOpen = regexp.MustCompile(`\x1b\[[0-9;]+m`)

// Plain mode writes no escape at all; colour mode styles each element
// and closes every style and hyperlink on the line that opens it.
func TestMarkdownColour(t *testing.T) {
	doc := "# Head\n\nText **bold** *it* ~~gone~~ `code` [link](https://e.com) <https://a.b>\n\n" +
		"- [x] item\n\n> quote\n\n---\n\n```\ncode\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
	plain := newRenderers(true, true).render(doc, 100)
	if s := strings.Join(plain, "\n"); strings.ContainsRune(s, '\x1b') {
		t.Errorf("plain output has escapes:\n%q", s)
	}
	for _, dark := range []bool{true, false} {
		lines := newRenderers(false, dark).render(doc, 100)
		all := strings.Join(lines, "\n")
		for _, want := range []string{
			"\x1b[1;38;5;",            // bold coloured heading
			"\x1b[1mbold\x1b[m",       // strong
			"\x1b[3mit\x1b[m",         // emphasis
			"\x1b[9mgone\x1b[m",       // strikethrough
			"\x1b]8;;https://e.com\a", // OSC 8 hyperlink
			"(https://e.com)",         // and the address shown
			"\x1b]8;;https://a.b\a",   // autolink
			"\x1b[1ma\x1b[m",          // table header
		} {
			if !strings.Contains(all, want) {
				t.Errorf("dark=%v: no %q in\n%q", dark, want, all)
			}
		}
		for _, l := range lines {
			if i := strings.LastIndex(l, "\x1b["); i >= 0 && sgrOpen.MatchString(l[i:]) && !strings.HasPrefix(l[i:], "\x1b[m") {
				t.Errorf("dark=%v: a style stays open at the end of %q", dark, l)
			}
			if strings.Count(l, "\x1b]8;;") != 2*strings.Count(l, "\x1b]8;;\a") {
				t.Errorf("dark=%v: a hyperlink stays open at the end of %q", dark, l)
			}
		}
		// The text is the same as plain, bar the markers plain mode keeps.
		strip := strings.NewReplacer("**", "", "*", "", "~~", "").Replace(strings.Join(plain, "\n"))
		if got := ansi.Strip(all); got != strip {
			t.Errorf("dark=%v: colour text differs from plain:\n%s\nplain:\n%s", dark, got, strip)
		}
	}
	light, dark := newRenderers(false, false).render("# H", 40), newRenderers(false, true).render("# H", 40)
	if light[0] == dark[0] {
		t.Errorf("light and dark headings share a colour: %q", light[0])
	}
}

// Streaming: finished blocks are rendered once and kept; the growing tail
// is rendered again only once the throttle has passed; the final text
// renders like the whole text at once.
func TestMarkdownStreaming(t *testing.T) {
	r := newRenderers(true, true)
	const throttle = 40 * time.Millisecond
	now := epoch
	var m markdown
	step := func(chunk string, advance time.Duration) string {
		m.append(chunk)
		now = now.Add(advance)
		return strings.Join(m.lines(40, r, throttle, now), "\n")
	}
	steps := []struct {
		chunk   string
		advance time.Duration
		want    string
	}{
		{"# Title\n\nFirst", 0, "  # Title\n\n  First"},
		// Within the throttle the tail shown is the one rendered before.
		{" paragraph", 10 * time.Millisecond, "  # Title\n\n  First"},
		{" grows", 30 * time.Millisecond, "  # Title\n\n  First paragraph grows"},
		// A blank line finishes the block: it is shown at once.
		{".\n\n", 0, "  # Title\n\n  First paragraph grows."},
		// A new tail right after a cut is shown at once, and the old
		// tail (now a finished block) not again.
		{"Next", 0, "  # Title\n\n  First paragraph grows.\n\n  Next"},
		{" one\n\n", 0, "  # Title\n\n  First paragraph grows.\n\n  Next one"},
		{"```go\nx := 1\n\ny := 2\n", time.Second, "  # Title\n\n  First paragraph grows.\n\n  Next one\n\n    x := 1\n\n    y := 2"},
		{"```\n\n- a\n- **b", time.Second, "  # Title\n\n  First paragraph grows.\n\n  Next one\n\n    x := 1\n\n    y := 2\n\n  • a\n  • **b"},
	}
	for i, s := range steps {
		if got := step(s.chunk, s.advance); got != s.want {
			t.Fatalf("step %d (%q):\n%s\nwant:\n%s", i, s.chunk, got, s.want)
		}
	}
	if len(m.blocks) != 4 || m.renderedN != 4 {
		t.Errorf("finished blocks = %d, rendered = %d; want 4 and 4 (title, 2 paragraphs, code)", len(m.blocks), m.renderedN)
	}
	// Finished blocks are not rendered again: their lines are the same slice.
	kept := m.rendered
	m.append("**")
	m.lines(40, r, throttle, now.Add(time.Second))
	if &kept[0] != &m.rendered[0] {
		t.Errorf("finished blocks were rendered again")
	}
	m.finish()
	got := strings.Join(m.lines(40, r, throttle, now), "\n")
	whole := renderPlain(m.text.String(), 40)
	if got != whole {
		t.Errorf("finished stream:\n%s\nwhole text:\n%s", got, whole)
	}
	// A new width renders everything again at that width.
	if got := m.lines(20, r, throttle, now); got[len(got)-1] != "  • **b**" || got[0] != "  # Title" || !strings.Contains(strings.Join(got, "\n"), "  First paragraph\n  grows.") {
		t.Errorf("at width 20:\n%s", strings.Join(got, "\n"))
	}
}

// Model output is outside input: no text makes the renderer panic or
// write an escape in plain mode, and the stream matches one render.
func FuzzMarkdownRender(f *testing.F) {
	for _, s := range []string{
		"# h\n\npara *em* **st** ~~x~~ `c` [l](u)\n\n- [ ] a\n  1. b\n\n> q\n\n```\ncode\n```\n",
		"| a | b |\n|:-|-:|\n| 1 | 2 |\n",
		"<div>\n\n*x*\n</div>\n\n    indented\n",
		"***bold italic***\n___\n[ref]\n\n[ref]: http://x \"t\"\n",
		"1. x\n\n   ```\n   y\n   ```\n",
	} {
		f.Add(s, uint8(40))
	}
	f.Fuzz(func(t *testing.T, src string, w uint8) {
		width := int(w)%120 + 1
		for _, plain := range []bool{true, false} {
			r := newRenderers(plain, true)
			lines := r.render(src, width)
			for _, l := range lines {
				if plain && strings.ContainsRune(l, '\x1b') {
					t.Fatalf("escape in plain output %q from %q", l, src)
				}
			}
		}
	})
}
