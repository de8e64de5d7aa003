package search

import (
	"fmt"
	"strings"
)

// Output bounds shared by the search tools.
const (
	maxLineChars  = 300   // a longer result line is cut with "…"
	maxOutputSize = 24000 // bytes of one tool result
)

// clipLine shortens one result line to maxLineChars runes.
func clipLine(s string) string {
	s = strings.TrimRight(s, "\r")
	if len(s) <= maxLineChars {
		return s
	}
	n := 0
	for i := range s {
		if n == maxLineChars {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// bounded collects result lines up to a byte budget.
type bounded struct {
	b     strings.Builder
	lines int
	full  bool
}

// add appends one line; false once the budget is spent.
func (o *bounded) add(line string) bool {
	if o.full || o.b.Len()+len(line)+1 > maxOutputSize {
		o.full = true
		return false
	}
	o.b.WriteString(line)
	o.b.WriteByte('\n')
	o.lines++
	return true
}

// footer is the closing "<system>…</system>" line saying what was cut.
func footer(format string, a ...any) string {
	return "<system>" + fmt.Sprintf(format, a...) + "</system>"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
