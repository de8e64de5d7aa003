package fs

import (
	"fmt"
	"strings"
)

// change is one requested replacement: Old (exact; "" inserts) becomes New.
// Start and End are 1-based inclusive lines; 0 means unset.
type change struct {
	Old, New   string
	Start, End int
}

// span is a located change: content[start:end] becomes text.
type span struct {
	start, end int
	text       string
	lead       int // bytes of a line end prepended to text (append after an unterminated last line)
}

// missKind says why a change could not be located.
type missKind int

const (
	missNone      missKind = iota
	missInvalid            // the change itself is malformed; msg says how
	missNotFound           // old_string does not occur in the range
	missAmbiguous          // no start_line and several matches
)

// miss is a change that could not be located.
type miss struct {
	kind  missKind
	msg   string // missInvalid
	lines []int  // missAmbiguous: lines of every match; missNotFound: matches outside the range
	last  int    // last line of the searched range
}

// check validates a change independently of any file.
func (c change) check() string {
	switch {
	case c.Old == "" && c.New == "":
		return "old_string and new_string are both empty"
	case c.Old == c.New:
		return "new_string must differ from old_string"
	case c.Start < 0:
		return "start_line must be a positive line number"
	case c.End < 0 || (c.End > 0 && c.End < c.Start):
		return "end_line must be a line number >= start_line"
	case c.Old == "" && c.Start == 0:
		return "inserting (empty old_string) needs start_line"
	}
	return ""
}

// locate finds c in content. A file with CRLF line ends accepts LF
// old_string and new_string: they are matched and written with CRLF.
func locate(content string, c change) (span, *miss) {
	if msg := c.check(); msg != "" {
		return span{}, &miss{kind: missInvalid, msg: msg}
	}
	starts := lineStarts(content)
	n := len(starts)
	crlf := strings.Contains(content, "\r\n")
	repl := c.New
	if crlf && !strings.Contains(repl, "\r") {
		repl = strings.ReplaceAll(repl, "\n", "\r\n")
	}

	if c.Old == "" {
		if c.Start > n+1 {
			return span{}, &miss{kind: missInvalid, msg: fmt.Sprintf("start_line %d is past the end of the file (%d lines; %d appends)", c.Start, n, n+1)}
		}
		if c.Start == n+1 {
			// Appending after a last line without a line end starts a new line.
			if content != "" && !strings.HasSuffix(content, "\n") {
				eol := "\n"
				if crlf {
					eol = "\r\n"
				}
				return span{start: len(content), end: len(content), text: eol + repl, lead: len(eol)}, nil
			}
			return span{start: len(content), end: len(content), text: repl}, nil
		}
		off := starts[c.Start-1]
		return span{start: off, end: off, text: repl}, nil
	}

	olds := []string{c.Old}
	if crlf && strings.Contains(c.Old, "\n") && !strings.Contains(c.Old, "\r") {
		olds = append(olds, strings.ReplaceAll(c.Old, "\n", "\r\n"))
	}

	if c.Start == 0 {
		for _, old := range olds {
			offs := occurrences(content, old)
			switch len(offs) {
			case 0:
				continue
			case 1:
				return span{start: offs[0], end: offs[0] + len(old), text: repl}, nil
			default:
				lines := make([]int, len(offs))
				for i, o := range offs {
					lines[i] = lineAt(starts, o)
				}
				return span{}, &miss{kind: missAmbiguous, lines: lines}
			}
		}
		return span{}, &miss{kind: missNotFound, last: n}
	}

	if c.Start > n {
		return span{}, &miss{kind: missInvalid, msg: fmt.Sprintf("start_line %d is past the end of the file (%d lines)", c.Start, n)}
	}
	from, to, last := starts[c.Start-1], len(content), n
	if c.End > 0 && c.End < n {
		to, last = starts[c.End], c.End
	}
	for _, old := range olds {
		if i := strings.Index(content[from:to], old); i >= 0 {
			return span{start: from + i, end: from + i + len(old), text: repl}, nil
		}
	}
	m := &miss{kind: missNotFound, last: last}
	for _, old := range olds {
		for _, o := range occurrences(content, old) {
			m.lines = append(m.lines, lineAt(starts, o))
		}
		if len(m.lines) > 0 {
			break
		}
	}
	return span{}, m
}

// occurrences returns the offsets of the non-overlapping matches of old.
func occurrences(s, old string) []int {
	var offs []int
	for i := 0; ; {
		j := strings.Index(s[i:], old)
		if j < 0 {
			return offs
		}
		offs = append(offs, i+j)
		i += j + len(old)
	}
}

// apply returns content with the spans (sorted, non-overlapping) replaced.
func apply(content string, spans []span) string {
	var b strings.Builder
	b.Grow(len(content))
	prev := 0
	for _, s := range spans {
		b.WriteString(content[prev:s.start])
		b.WriteString(s.text)
		prev = s.end
	}
	b.WriteString(content[prev:])
	return b.String()
}
