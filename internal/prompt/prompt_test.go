package prompt

import (
	"strings"
	"testing"
)

func TestBuildSections(t *testing.T) {
	skills := "# Skills\nSkills are…\n- deploy: Ship it\n"
	tests := []struct {
		name     string
		opts     Options
		want     []string // in this order
		wantNone []string
	}{
		{"built-in only", Options{Workspace: "/w", OS: "linux", Shell: "bash"},
			[]string{"You are OpenSeek", "# Environment\nWorkspace root: /w"}, []string{"# Project instructions", "# Skills"}},
		{"all sections", Options{Workspace: "/w", OS: "linux", Shell: "bash", Addendum: "ADDENDUM", Memory: "<file path=\"/w/AGENTS.md\">\nuse tabs\n</file>\n", Skills: skills},
			[]string{"You are OpenSeek", "# Environment", "ADDENDUM", "\n\n# Project instructions (AGENTS.md)\n", "use tabs\n</file>\n\n# Skills\n", "- deploy: Ship it\n"}, nil},
		{"replacement keeps sections", Options{Replace: "CUSTOM PROMPT\n", Memory: "M", Skills: skills},
			[]string{"CUSTOM PROMPT\n\n# Project instructions", "\n\nM\n\n# Skills"}, []string{"You are OpenSeek", "# Environment"}},
		{"blank sections omitted", Options{Replace: "X", Memory: " \n", Skills: "\n"}, []string{"X"}, []string{"# Project instructions", "\n\n\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(tt.opts)
			at := 0
			for _, w := range tt.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("prompt lacks %q after offset %d:\n%s", w, at, got)
				}
				at += i + len(w)
			}
			for _, w := range tt.wantNone {
				if strings.Contains(got, w) {
					t.Fatalf("prompt has %q:\n%s", w, got)
				}
			}
			if !strings.HasSuffix(got, "\n") || strings.HasSuffix(got, "\n\n") {
				t.Fatalf("prompt must end in exactly one newline: %q", got[max(0, len(got)-20):])
			}
			if again := Build(tt.opts); again != got {
				t.Fatal("Build is not deterministic")
			}
		})
	}
	// Adding sections never changes the bytes before them (prefix stability).
	plain := Build(Options{Workspace: "/w", OS: "linux", Shell: "bash"})
	full := Build(Options{Workspace: "/w", OS: "linux", Shell: "bash", Memory: "m", Skills: skills})
	if !strings.HasPrefix(full, strings.TrimRight(plain, "\n")) {
		t.Fatal("sections changed the prompt before them")
	}
}
