package render

import (
	"slices"
	"testing"
)

// The footer a tool writes for the model becomes an exit code and plain
// words; text without a known footer comes back whole.
func TestSplitFooter(t *testing.T) {
	cases := []struct {
		in, body, exit string
		notes          []string
		ok             bool
	}{
		{"hello\n<system>exit=0</system>", "hello", "0", nil, true},
		{"<system>exit=2</system>\n", "", "2", nil, true},
		{"a\n[… 10 characters omitted …]\nb\n<system>exit=1 truncated=true shown_chars=12000 total_chars=50000</system>", "a\n[… 10 characters omitted …]\nb", "1",
			[]string{"output cut: 12000 of 50000 characters shown"}, true},
		{"x\n<system>exit=0 output_dropped_at_cap=true killed_at_output_cap=true binary_output=true output_not_saved=true</system>", "x", "0",
			[]string{"output past the size cap was not kept", "stopped: the output reached the size cap", "binary output", "the output could not be saved"}, true},
		{"started job bg-1 in the background\n<system>job=bg-1 running</system>", "started job bg-1 in the background", "", []string{"background job bg-1", "running"}, true},
		{"out\n<system>job=bg-2 exit=3 truncated=true total_chars=900 shown_chars=100 window_offset=800</system>", "out", "3",
			[]string{"background job bg-2", "output cut: 100 of 900 characters shown from character 800"}, true},
		{"1 a\n<system>start_line=1 shown_lines=40 total_lines=90 truncated=true</system>", "1 a", "", []string{"lines 1–40 of 90 shown"}, true},
		{"1 a\n<system>start_line=1 shown_lines=1 total_lines=1 truncated=false</system>", "1 a", "", nil, true},
		{"<system>start_line=1 shown_lines=0 total_lines=0 truncated=false note=empty file</system>", "", "", []string{"empty file"}, true},
		{"a/\nb\n<system>directory entries=300 shown_entries=200 truncated=true</system>", "a/\nb", "", []string{"200 of 300 entries shown"}, true},
		{"plain text", "plain text", "", nil, false},
		{"x <system>exit=0</system> y", "x <system>exit=0</system> y", "", nil, false},
		{"x\n<system>secret=1</system>", "x\n<system>secret=1</system>", "", nil, false},
		{"x\n<system>exit=0 exit=1</system>", "x\n<system>exit=0 exit=1</system>", "", nil, false},
		{"<system></system>", "<system></system>", "", nil, false},
	}
	for _, c := range cases {
		body, f, ok := SplitFooter(c.in)
		if body != c.body || f.Exit != c.exit || !slices.Equal(f.Notes, c.notes) || ok != c.ok {
			t.Errorf("SplitFooter(%q) = %q, %+v, %v; want %q, exit %q, %q, %v", c.in, body, f, ok, c.body, c.exit, c.notes, c.ok)
		}
	}
}

func FuzzSplitFooter(f *testing.F) {
	f.Add("hello\n<system>exit=0 truncated=true shown_chars=1 total_chars=2</system>")
	f.Add("<system>start_line=1 shown_lines=0 total_lines=0 truncated=false note=empty file</system>")
	f.Fuzz(func(t *testing.T, s string) {
		body, _, ok := SplitFooter(s)
		if !ok && body != s {
			t.Fatalf("not ok but text changed: %q -> %q", s, body)
		}
		if ok && len(body) >= len(s) {
			t.Fatalf("ok but nothing taken: %q", s)
		}
	})
}
