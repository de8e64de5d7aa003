package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
)

// matcher finds the lines of a buffer that an RE2 pattern matches. Go's
// regexp is slow over whole files, so a literal that every match must
// contain is located with bytes.Index first (vectorised), and the regexp
// runs only on the lines that hold it.
type matcher struct {
	line    *regexp.Regexp // runs on one line
	buf     *regexp.Regexp // multi-line form, for patterns without a literal
	literal []byte         // every match contains it; nil = none known
	pure    bool           // the pattern is exactly literal
}

func newMatcher(pattern string, ignoreCase bool) (*matcher, error) {
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	line, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	buf, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{line: line, buf: buf}
	if re, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		re = re.Simplify()
		m.literal = requiredLiteral(re)
		m.pure = re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase == 0 && !bytes.ContainsAny(m.literal, "\n")
	}
	return m, nil
}

// requiredLiteral is the longest case-sensitive literal every match of re
// contains, or nil.
func requiredLiteral(re *syntax.Regexp) []byte {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []byte(string(re.Rune))
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0])
	case syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []byte
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return nil
}

// each calls fn with the byte range [start, end) of every line of b that
// matches (end excludes the newline), in order, until fn returns false.
func (m *matcher) each(b []byte, fn func(start, end int) bool) {
	pos := 0
	for pos < len(b) {
		var at int
		if m.literal != nil {
			i := bytes.Index(b[pos:], m.literal)
			if i < 0 {
				return
			}
			at = pos + i
		} else {
			loc := m.buf.FindIndex(b[pos:])
			if loc == nil {
				return
			}
			at = pos + loc[0]
		}
		start := bytes.LastIndexByte(b[:at], '\n') + 1
		end := bytes.IndexByte(b[at:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += at
		}
		if m.pure || m.line.Match(b[start:end]) {
			if !fn(start, end) {
				return
			}
		}
		pos = end + 1
	}
}
