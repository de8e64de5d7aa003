package fs

import (
	"strings"
	"testing"
)

// revert_on_parse_errors refuses, before writing, a Go edit that adds
// syntax errors; an edit to a file that already fails to parse is
// accepted when it adds none.
func TestEditParseGate(t *testing.T) {
	const clean = "package main\n\nfunc main() {\n\tprintln(1)\n}\n"
	const broken = "package main\n\nfunc main() {\n\tprintln(1\n}\n"
	for _, tc := range []struct {
		name, file, old, new string
		rejected             bool
	}{
		{"adds a syntax error", clean, "println(1)", "println(1", true},
		{"stays valid", clean, "println(1)", "println(2)", false},
		{"already broken, no new error", broken, "func main", "func run", false},
		{"type errors are not parse errors", clean, "println(1)", "var s int = \"x\"", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, map[string]string{"main.go": tc.file})
			res := call(t, Edit(), env, map[string]any{"path": "main.go", "old_string": tc.old, "new_string": tc.new, "start_line": 1, "revert_on_parse_errors": true})
			text := res.Content.Text()
			if tc.rejected {
				if !res.IsError || !strings.HasPrefix(text, "rejected: the edit would introduce ") ||
					!strings.Contains(text, " new parse error(s) in main.go, so the file was NOT modified.\n1. line 4:11: missing ','") {
					t.Fatalf("result %q", text)
				}
				if got := readFile(t, env, "main.go"); got != tc.file {
					t.Errorf("file changed to %q", got)
				}
				return
			}
			if res.IsError || !strings.HasPrefix(text, "ok: replaced") {
				t.Fatalf("result %q", text)
			}
		})
	}
}

func TestEditRefusesNegativeErrorDelta(t *testing.T) {
	env := newEnv(t, map[string]string{"a.txt": "x\n"})
	res := call(t, Edit(), env, map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y", "start_line": 1, "revert_if_error_delta_greater_or_equal": -1})
	if !res.IsError || !strings.Contains(res.Content.Text(), "must be 0 or more") || readFile(t, env, "a.txt") != "x\n" {
		t.Errorf("result %q", res.Content.Text())
	}
}
