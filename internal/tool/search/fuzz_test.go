package search

import (
	"slices"
	"strings"
	"testing"
)

// FuzzMatcher checks that the prefilters (literals, case-folded
// literals, byte classes) never change which lines match: the result
// must equal the regexp run on every line.
func FuzzMatcher(f *testing.F) {
	for _, seed := range []struct {
		pattern, text string
		fold          bool
	}{
		{"Err", "Errors\nerr\n", false},
		{"err(or)?s", "ERRORS\nerrs\n", true},
		{`[A-Z]{2}\d`, "AB1\nab1\n", false},
		{`^\s*func`, "  func x\nfunc\n", false},
		{"kelvin", "\u212aelvin\n", true},
		{`a|é`, "é\nb\n", false},
		{`[A-Z]{3}[0-9]{2}`, "ABC12\nAB12\nxABC123\n", false},
		{`\b[a-z]_\d+`, "x_1\n_1\n", true},
	} {
		f.Add(seed.pattern, seed.text, seed.fold)
	}
	f.Fuzz(func(t *testing.T, pattern, text string, fold bool) {
		m, err := newMatcher(pattern, fold)
		if err != nil {
			return
		}
		// A file's lines: none for an empty file, and no empty line
		// after a final newline.
		var lines []string
		if text != "" {
			lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
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
			t.Fatalf("pattern %q fold %v on %q: got %q, want %q", pattern, fold, text, got, want)
		}
	})
}
