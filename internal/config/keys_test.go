package config

import (
	"strings"
	"testing"
)

func TestUnknownKeysAreErrorsWithSuggestions(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"modle = \"deepseek-v4-pro\"\n", `x.toml:1:10: unknown key modle (did you mean model?)`},
		{"[sandbox]\nenabled = false\n[sandboxx]\n", `x.toml:3:17: unknown key sandboxx (did you mean sandbox?)`},
		{"[providers.deepseek]\nbase_ulr = \"http://x\"\n", `unknown key providers.deepseek.base_ulr (did you mean base_url?)`},
		{"zzzzzz = 1\n", `unknown key zzzzzz; known keys:`},
	} {
		_, err := parseFile("x.toml", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.doc, err, tc.want)
		}
	}
	if _, err := parseFile("x.toml", []byte("model = \"m\"\n[[rules]]\npattern = [\"git\"]\ndecision = \"ask\"\n[verify]\ncommand = \"make\"\n")); err != nil {
		t.Errorf("known sections refused: %v", err)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"modle", "model", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"same", "same", 0}} {
		if got := editDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
