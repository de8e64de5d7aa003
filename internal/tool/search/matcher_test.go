package search

import (
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

// The prefilters must not change what matches: every pattern is checked
// against a plain line-by-line regexp run.
func TestMatcherAgreesWithLineByLine(t *testing.T) {
	text := "Errors\nERR_io\nCODE42 and ABC1\nERR_io_x\nfunc (r *Reader) Close() error\nthe KELVIN \u212a sign\nlong \u017ftring\n" +
		"x := errors.New(\"unexpected EOF\")\nno match here\nMixedCase ErrUnexpectedEOF\nend without newline Err"
	tests := []struct {
		pattern    string
		ignoreCase bool
	}{
		{"Err", false},
		{"err", true},
		{"ERR_IO", true},
		{`func \(\w+ \*\w+\) Close\(\)`, false},
		{`[A-Z][a-z]+Case`, false},
		{`kelvin`, true}, // k folds to the Kelvin sign: no ASCII prefilter on it
		{`k`, true},      // matches the Kelvin sign line too
		{`string`, true}, // s folds to the long s
		{`^end.*Err$`, false},
		{`unexpected\s+eof`, true},
		{`e(rr|OF)`, false},
		{`x{2,}`, false},
		{`errors\.New`, false},
		{`[A-Z]{3}[0-9]?`, false}, // no literal: the byte-class prefilter
		{`[0-9]|[xy]`, false},
		{`[ï-ü]+`, false},
		{`[a-z]+\s`, true},
		{`[A-Z]{3}[0-9]{2}`, false}, // the byte-sequence prefilter
		{`\b[A-Z]{2}_[a-z]{2}\b`, true},
		{`K[a-z]`, true}, // K folds to the Kelvin sign: the run breaks there
		{`\(r \*`, false},
		{`[a-z]{2,}[0-9]`, false},
		{`(?i)e[rR]{2}`, false},
		{`K\w`, false}, // a multi-byte literal rune in the run
	}
	lines := strings.Split(text, "\n")
	for _, tc := range tests {
		m, err := newMatcher(tc.pattern, tc.ignoreCase)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, l := range lines {
			if m.line.MatchString(l) {
				want = append(want, l)
			}
		}
		var got []string
		m.each([]byte(text), func(s, e int) bool {
			got = append(got, text[s:e])
			return true
		})
		if !slices.Equal(got, want) {
			t.Errorf("%q (ignore case %v): got %q, want %q", tc.pattern, tc.ignoreCase, got, want)
		}
	}
}

func TestRequiredLiteral(t *testing.T) {
	for _, tc := range []struct {
		pattern, want string
		fold          bool
	}{
		{"abc", "abc", false},
		{`func \w+Error\(`, "Error(", false},
		{`(?i)hello\s+World`, "hello", true},
		{`a|b`, "", false},
		{`(foo)+bar?`, "foo", false},
	} {
		re := mustParse(t, tc.pattern)
		l := requiredLiteral(re)
		if !strings.EqualFold(string(l.text), tc.want) || (!l.fold && string(l.text) != tc.want) || (tc.want != "" && l.fold != tc.fold) {
			t.Errorf("%q: literal %q fold %v, want %q fold %v", tc.pattern, l.text, l.fold, tc.want, tc.fold)
		}
	}
}

func mustParse(t *testing.T, pattern string) *syntax.Regexp {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	return re.Simplify()
}
