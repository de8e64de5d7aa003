package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arg is one word of a command as the policy sees it: its value when the
// shell would expand it to a fixed string, or its source text when not.
type arg struct {
	s      string
	static bool
}

// argsOf converts shell words; printer renders the dynamic ones.
func argsOf(words []*syntax.Word) []arg {
	out := make([]arg, len(words))
	for i, w := range words {
		if s, ok := staticWord(w); ok {
			out[i] = arg{s: s, static: true}
		} else {
			out[i] = arg{s: source(w)}
		}
	}
	return out
}

// staticWord is the value of a word made only of literals and quotes, the
// way the shell would pass it to the program. A word with an expansion, a
// substitution or a glob-free brace expansion is not static.
func staticWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false // $'…' escapes: leave to the shell
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(lit.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the shell's backslash quoting: outside quotes every
// backslash escapes the next byte; inside double quotes only $ ` " \ and
// newline are escaped. A backslash-newline joins lines.
func unescape(s string, dquoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
			i++
		case !dquoted || strings.IndexByte("$`\"\\", n) >= 0:
			b.WriteByte(n)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// source is the shell text of a node, for display.
func source(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.Minify(true)).Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}

func words(as []arg) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.s
	}
	return out
}
