package markdown

import "strings"

// Raw HTML in Markdown: the seven kinds of HTML block start (CommonMark
// 4.6) and the tags, comments and declarations that are inline HTML
// (6.6). The renderer shows them dimmed as written; these only decide
// where they begin and end.

// htmlBlockStart is the kind (1-7) of HTML block that s starts, else 0;
// kind 7 cannot interrupt a paragraph (inPara).
func htmlBlockStart(s string, inPara bool) int {
	if len(s) < 2 || s[0] != '<' {
		return 0
	}
	switch {
	case tagPrefix(s[1:], "script", "pre", "textarea", "style") > 0:
		return 1
	case strings.HasPrefix(s, "<!--"):
		return 2
	case strings.HasPrefix(s, "<?"):
		return 3
	case len(s) > 2 && s[1] == '!' && isAlpha(s[2]):
		return 4
	case strings.HasPrefix(s, "<![CDATA["):
		return 5
	}
	name := s[1:]
	if name[0] == '/' {
		name = name[1:]
	}
	k := 0
	for k < len(name) && isAlnum(name[k]) {
		k++
	}
	if k > 0 && isBlockTag(strings.ToLower(name[:k])) {
		rest := name[k:]
		if rest == "" || isSpaceOrTab(rest[0]) || rest[0] == '>' || strings.HasPrefix(rest, "/>") {
			return 6
		}
	}
	if !inPara {
		if n := htmlTagLen(s, false); n > 0 && (s[1] == '/' || s[1] != '!' && s[1] != '?') && strings.Trim(s[n:], " \t") == "" {
			if strings.HasPrefix(s, "</") || isAlpha(s[1]) {
				return 7
			}
		}
	}
	return 0
}

// tagPrefix is the length of one of names (any case) at the start of s
// when a space, a ">" or the end follows it, else 0.
func tagPrefix(s string, names ...string) int {
	for _, n := range names {
		if len(s) >= len(n) && strings.EqualFold(s[:len(n)], n) {
			if len(s) == len(n) || isSpaceOrTab(s[len(n)]) || s[len(n)] == '>' {
				return len(n)
			}
		}
	}
	return 0
}

// htmlBlockEnds says whether line ends an HTML block of kind 1-5.
func htmlBlockEnds(kind int, line string) bool {
	switch kind {
	case 1:
		l := strings.ToLower(line)
		return strings.Contains(l, "</script>") || strings.Contains(l, "</pre>") ||
			strings.Contains(l, "</textarea>") || strings.Contains(l, "</style>")
	case 2:
		return strings.Contains(line, "-->")
	case 3:
		return strings.Contains(line, "?>")
	case 4:
		return strings.Contains(line, ">")
	case 5:
		return strings.Contains(line, "]]>")
	}
	return false
}

func isBlockTag(name string) bool {
	switch name {
	case "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption",
		"center", "col", "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt",
		"fieldset", "figcaption", "figure", "footer", "form", "frame", "frameset",
		"h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr", "html", "iframe",
		"legend", "li", "link", "main", "menu", "menuitem", "nav", "noframes", "ol",
		"optgroup", "option", "p", "param", "search", "section", "summary", "table", "tbody",
		"td", "tfoot", "th", "thead", "title", "tr", "track", "ul":
		return true
	}
	return false
}

// htmlTagLen is the length of the open tag, closing tag, comment,
// processing instruction, declaration or CDATA section at the start of
// s, else 0; multiline lets white space in a tag span a line ending.
func htmlTagLen(s string, multiline bool) int {
	if len(s) < 3 || s[0] != '<' {
		return 0
	}
	switch {
	case strings.HasPrefix(s, "<!--"):
		if strings.HasPrefix(s[4:], ">") {
			return 5
		}
		if strings.HasPrefix(s[4:], "->") {
			return 6
		}
		if i := strings.Index(s[4:], "-->"); i >= 0 {
			return 4 + i + 3
		}
		return 0
	case s[1] == '?':
		if i := strings.Index(s[2:], "?>"); i >= 0 {
			return 2 + i + 2
		}
		return 0
	case strings.HasPrefix(s, "<![CDATA["):
		if i := strings.Index(s[9:], "]]>"); i >= 0 {
			return 9 + i + 3
		}
		return 0
	case s[1] == '!' && isAlpha(s[2]):
		if i := strings.IndexByte(s, '>'); i >= 0 {
			return i + 1
		}
		return 0
	case s[1] == '/':
		i := tagName(s, 2)
		if i == 2 {
			return 0
		}
		i = htmlSpace(s, i, multiline)
		if i < len(s) && s[i] == '>' {
			return i + 1
		}
		return 0
	}
	i := tagName(s, 1)
	if i == 1 {
		return 0
	}
	for {
		j := htmlSpace(s, i, multiline)
		if j < len(s) && s[j] == '>' {
			return j + 1
		}
		if j+1 < len(s) && s[j] == '/' && s[j+1] == '>' {
			return j + 2
		}
		if j == i {
			return 0 // an attribute needs white space before it
		}
		k := attribute(s, j, multiline)
		if k == j {
			return 0
		}
		i = k
	}
}

// tagName is the index after the tag name at i (i if none).
func tagName(s string, i int) int {
	if i >= len(s) || !isAlpha(s[i]) {
		return i
	}
	j := i + 1
	for j < len(s) && (isAlnum(s[j]) || s[j] == '-') {
		j++
	}
	return j
}

// htmlSpace skips spaces and tabs, and one line ending if multiline.
func htmlSpace(s string, i int, multiline bool) int {
	nl := false
	for i < len(s) {
		switch s[i] {
		case ' ', '\t':
		case '\n':
			if !multiline || nl {
				return i
			}
			nl = true
		default:
			return i
		}
		i++
	}
	return i
}

// attribute is the index after the attribute at i (i if none).
func attribute(s string, i int, multiline bool) int {
	if i >= len(s) || !(isAlpha(s[i]) || s[i] == '_' || s[i] == ':') {
		return i
	}
	j := i + 1
	for j < len(s) && (isAlnum(s[j]) || strings.IndexByte("_.:-", s[j]) >= 0) {
		j++
	}
	k := htmlSpace(s, j, multiline)
	if k >= len(s) || s[k] != '=' {
		return j
	}
	k = htmlSpace(s, k+1, multiline)
	if k >= len(s) {
		return i
	}
	switch q := s[k]; q {
	case '"', '\'':
		e := strings.IndexByte(s[k+1:], q)
		if e < 0 {
			return i
		}
		return k + 1 + e + 1
	default:
		e := k
		for e < len(s) && s[e] > ' ' && strings.IndexByte("\"'=<>`", s[e]) < 0 {
			e++
		}
		if e == k {
			return i
		}
		return e
	}
}
