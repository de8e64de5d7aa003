package web

import (
	"html/template"
	"strings"
)

// diffFile is one file of a unified diff as a page shows it: its name,
// the lines added and removed, and its lines classed and colored.
type diffFile struct {
	Name     string
	Add, Del int
	Lines    []diffLine
}

// diffLine is one line of a diff: its class (add, del, ctx, hunk) and
// its text, the code syntax-coloured by the file's language.
type diffLine struct {
	Class string
	Text  template.HTML
}

// diffFiles splits a unified diff (an edit's, or git's for a whole
// session) into files. Headers name the file and are not shown as lines.
func diffFiles(diff string) []diffFile {
	if diff == "" {
		return nil
	}
	var out []diffFile
	var cur *diffFile
	var lex *language
	start := func(name string) {
		out = append(out, diffFile{Name: name})
		cur = &out[len(out)-1]
		lex = languageOf(name)
	}
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			name := l[len("diff --git "):]
			if j := strings.LastIndex(name, " b/"); j >= 0 {
				name = name[j+3:]
			}
			start(name)
			continue
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			name := strings.TrimPrefix(strings.TrimPrefix(lines[i+1], "+++ "), "b/")
			if name == "/dev/null" {
				name = strings.TrimPrefix(strings.TrimPrefix(l, "--- "), "a/")
			}
			if cur == nil || cur.Name != name || len(cur.Lines) > 0 {
				start(name)
			}
			continue
		case strings.HasPrefix(l, "+++ ") && i > 0 && strings.HasPrefix(lines[i-1], "--- "):
			continue
		case cur == nil:
			start("")
		}
		if len(cur.Lines) == 0 && !strings.HasPrefix(l, "@@") && !strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "-") && !strings.HasPrefix(l, " ") {
			continue // git's header lines (index, mode, rename)
		}
		switch {
		case strings.HasPrefix(l, "@@"):
			cur.Lines = append(cur.Lines, diffLine{"hunk", template.HTML(template.HTMLEscapeString(l))})
		case strings.HasPrefix(l, "+"):
			cur.Add++
			cur.Lines = append(cur.Lines, diffLine{"add", "+" + colored(lex, l[1:])})
		case strings.HasPrefix(l, "-"):
			cur.Del++
			cur.Lines = append(cur.Lines, diffLine{"del", "-" + colored(lex, l[1:])})
		case strings.HasPrefix(l, " "):
			cur.Lines = append(cur.Lines, diffLine{"ctx", " " + colored(lex, l[1:])})
		default: // "\ No newline at end of file"
			cur.Lines = append(cur.Lines, diffLine{"note", template.HTML(template.HTMLEscapeString(l))})
		}
	}
	return out
}
