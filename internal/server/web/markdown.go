package web

import (
	"html"
	"html/template"
	"strings"
)

// markdown renders an answer the way static/app.js renders a streamed one
// (keep the two alike): everything escaped; fenced code blocks become
// <pre><code>; blank lines split paragraphs; inside a paragraph `code`
// and **bold** are marked and line breaks kept. Nothing else of Markdown
// is interpreted, so no model output can inject markup.
func markdown(s string) template.HTML {
	var b strings.Builder
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>")
			for i, l := range para {
				if i > 0 {
					b.WriteString("<br>")
				}
				b.WriteString(inline(l))
			}
			b.WriteString("</p>")
			para = para[:0]
		}
	}
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if fence, ok := strings.CutPrefix(strings.TrimSpace(l), "```"); ok {
			flush()
			lang := strings.TrimSpace(fence)
			var code []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				code = append(code, lines[i])
			}
			b.WriteString("<pre class=\"code\"")
			if lang != "" {
				b.WriteString(" data-lang=\"" + html.EscapeString(lang) + "\"")
			}
			b.WriteString("><code>" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre>")
			continue
		}
		if strings.TrimSpace(l) == "" {
			flush()
			continue
		}
		para = append(para, l)
	}
	flush()
	return template.HTML(b.String())
}

// inline escapes one line and marks `code` spans and **bold** runs.
func inline(l string) string {
	var b strings.Builder
	parts := strings.Split(l, "`")
	for i, part := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + html.EscapeString(part) + "</code>")
			continue
		}
		if i%2 == 1 { // an unpaired backtick stays as it was
			b.WriteString("`")
		}
		b.WriteString(bold(html.EscapeString(part)))
	}
	return b.String()
}

// bold marks **runs** of already escaped text.
func bold(s string) string {
	parts := strings.Split(s, "**")
	if len(parts) < 3 {
		return s
	}
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString("<strong>" + p + "</strong>")
		case i%2 == 1:
			b.WriteString("**" + p)
		default:
			b.WriteString(p)
		}
	}
	return b.String()
}
