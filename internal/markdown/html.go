package markdown

import (
	"html"
	"strconv"
	"strings"
)

// HTML renders markdown as HTML for a page: the same parse the terminal
// shows. Everything from src is escaped; raw HTML in it is shown as text;
// a link is a link only to an http, https or mailto address (anything
// else, javascript: included, is its text); an image is its description
// and address, never loaded. Fenced code keeps its language as data-lang.
func HTML(src string) string {
	var b strings.Builder
	htmlBlocks(&b, parseMarkdown(sanitize(src)))
	return b.String()
}

func htmlBlocks(b *strings.Builder, parent *mdNode) {
	for n := parent.first; n != nil; n = n.next {
		htmlBlock(b, n, false)
	}
}

// htmlBlock writes one block; tight: a paragraph of a tight list item,
// written without <p>.
func htmlBlock(b *strings.Builder, n *mdNode, tight bool) {
	switch n.kind {
	case mdHeading:
		tag := "h" + strconv.Itoa(min(max(n.level, 1), 6))
		b.WriteString("<" + tag + ">")
		htmlInline(b, n)
		b.WriteString("</" + tag + ">")
	case mdParagraph:
		if n.first == nil {
			return
		}
		if htmlTable(b, n) {
			return
		}
		if tight {
			htmlInline(b, n)
			return
		}
		b.WriteString("<p>")
		htmlInline(b, n)
		b.WriteString("</p>")
	case mdThematicBreak:
		b.WriteString("<hr>")
	case mdCodeBlock:
		lines := make([]string, 0, len(n.lines))
		for _, l := range n.lines {
			lines = append(lines, strings.TrimRight(l, "\r\n"))
		}
		for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
			lines = lines[:len(lines)-1]
		}
		b.WriteString(`<pre class="code"`)
		if lang, _, _ := strings.Cut(n.text, " "); lang != "" {
			b.WriteString(` data-lang="` + html.EscapeString(lang) + `"`)
		}
		b.WriteString("><code>" + html.EscapeString(strings.Join(lines, "\n")) + "</code></pre>")
	case mdBlockquote:
		b.WriteString("<blockquote>")
		htmlBlocks(b, n)
		b.WriteString("</blockquote>")
	case mdList:
		tag := "ul"
		if n.ordered {
			tag = "ol"
		}
		b.WriteString("<" + tag)
		if n.ordered && n.start != 1 {
			b.WriteString(` start="` + strconv.Itoa(n.start) + `"`)
		}
		b.WriteString(">")
		for it := n.first; it != nil; it = it.next {
			b.WriteString("<li>")
			for c := it.first; c != nil; c = c.next {
				htmlBlock(b, c, n.tight)
			}
			b.WriteString("</li>")
		}
		b.WriteString("</" + tag + ">")
	case mdHTMLBlock:
		b.WriteString(`<pre class="html">` + html.EscapeString(strings.TrimRight(strings.Join(n.lines, ""), "\n")) + "</pre>")
	default:
		if n.isBlock() {
			htmlBlocks(b, n)
		}
	}
}

// htmlInline writes the inline content of n.
func htmlInline(b *strings.Builder, n *mdNode) {
	for c := n.first; c != nil; c = c.next {
		switch c.kind {
		case mdText:
			b.WriteString(html.EscapeString(c.text))
			switch {
			case c.hard:
				b.WriteString("<br>")
			case c.soft:
				b.WriteString("\n")
			}
		case mdCodeSpan:
			b.WriteString("<code>" + html.EscapeString(c.text) + "</code>")
		case mdEmphasis:
			tag := "em"
			if c.level >= 2 {
				tag = "strong"
			}
			b.WriteString("<" + tag + ">")
			htmlInline(b, c)
			b.WriteString("</" + tag + ">")
		case mdStrike:
			b.WriteString("<del>")
			htmlInline(b, c)
			b.WriteString("</del>")
		case mdLink:
			if href, ok := safeURL(c.dest); ok {
				b.WriteString(`<a href="` + html.EscapeString(href) + `" rel="noopener noreferrer" target="_blank">`)
				htmlInline(b, c)
				b.WriteString("</a>")
			} else {
				htmlInline(b, c)
			}
		case mdAutoLink:
			dest := c.text
			if strings.Contains(dest, "@") && !strings.Contains(dest, ":") {
				dest = "mailto:" + dest
			}
			if href, ok := safeURL(dest); ok {
				b.WriteString(`<a href="` + html.EscapeString(href) + `" rel="noopener noreferrer" target="_blank">` + html.EscapeString(c.text) + "</a>")
			} else {
				b.WriteString(html.EscapeString(c.text))
			}
		case mdImage:
			b.WriteString(`<span class="image">[image: `)
			htmlInline(b, c)
			b.WriteString("]")
			if c.dest != "" {
				b.WriteString(" (" + html.EscapeString(c.dest) + ")")
			}
			b.WriteString("</span>")
		case mdRawHTML:
			b.WriteString(html.EscapeString(c.text))
		default:
			htmlInline(b, c)
		}
	}
}

// safeURL is dest when its scheme is http, https or mailto.
func safeURL(dest string) (string, bool) {
	d := strings.TrimSpace(dest)
	scheme, _, ok := strings.Cut(d, ":")
	if !ok {
		return "", false
	}
	switch strings.ToLower(scheme) {
	case "http", "https", "mailto":
		return d, true
	}
	return "", false
}

// htmlTable writes a paragraph that is a GFM pipe table as a <table>;
// false when it is not one (the terminal renderer's rule, mdtable.go).
func htmlTable(b *strings.Builder, n *mdNode) bool {
	if len(n.lines) < 2 {
		return false
	}
	row := func(i int) string { return strings.TrimSpace(n.lines[i]) }
	if !strings.Contains(row(1), "|") && !strings.Contains(row(0), "|") {
		return false
	}
	aligns := parseAligns(splitRow(row(1)))
	head := splitRow(row(0))
	if aligns == nil || len(head) != len(aligns) {
		return false
	}
	cell := func(tag, s string, col int) {
		b.WriteString("<" + tag)
		switch aligns[col] {
		case alignCenter:
			b.WriteString(` class="center"`) // a class, not a style: the pages' CSP allows no inline style
		case alignRight:
			b.WriteString(` class="right"`)
		}
		b.WriteString(">")
		if p := parseMarkdown(s).first; p != nil && p.kind == mdParagraph && p.next == nil {
			htmlInline(b, p)
		} else {
			b.WriteString(html.EscapeString(s))
		}
		b.WriteString("</" + tag + ">")
	}
	b.WriteString(`<table class="md"><thead><tr>`)
	for i, h := range head {
		cell("th", h, i)
	}
	b.WriteString("</tr></thead><tbody>")
	for i := 2; i < len(n.lines); i++ {
		cells := splitRow(row(i))
		b.WriteString("<tr>")
		for j := range aligns {
			s := ""
			if j < len(cells) {
				s = cells[j]
			}
			cell("td", s, j)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return true
}
