package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestApplyPatchCommand(t *testing.T) {
	t.Parallel()
	const update = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** Add File: sub/b.txt\n+bee\n*** Delete File: gone.txt\n*** End Patch\n"
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
		a      string // a.txt afterwards
	}{
		{name: "patch as argument", args: []string{"apply-patch", update}, stdout: "Success. Updated the following files:\nM a.txt\nA sub/b.txt\nD gone.txt\n", a: "two\n"},
		{name: "patch on stdin", args: []string{"apply-patch"}, stdin: update, stdout: "Success. Updated the following files:\nM a.txt\nA sub/b.txt\nD gone.txt\n", a: "two\n"},
		{name: "heredoc wrapper on stdin", args: []string{"apply-patch"}, stdin: "<<'EOF'\n" + update + "EOF\n", code: 0, stdout: "M a.txt", a: "two\n"},
		{name: "context mismatch changes nothing", args: []string{"apply-patch", "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Update File: a.txt\n@@\n-three\n+four\n*** End Patch"},
			code: 1, stderr: "error: Update File a.txt, hunk 1 (patch line 5): expected lines not found:\n  three", a: "one\n"},
		{name: "malformed", args: []string{"apply-patch", "--", "--- a/a.txt\n+++ b/a.txt"}, code: 1, stderr: "error: invalid patch: the first line of the patch must be '*** Begin Patch'", a: "one\n"},
		{name: "outside the directory", args: []string{"apply-patch", "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch"}, code: 1, stderr: "is outside the workspace", a: "one\n"},
		{name: "empty", args: []string{"apply-patch"}, stdin: "  \n", code: 1, stderr: "error: the patch is empty", a: "one\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "ws")
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "gone.txt"), []byte("bye\n"), 0o644)
			r := openseek(t, dir, tc.stdin, nil, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", r.code, tc.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stdout %q stderr %q, want %q and %q", r.stdout, r.stderr, tc.stdout, tc.stderr)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != tc.a {
				t.Errorf("a.txt = %q, want %q", b, tc.a)
			}
			if tc.code != 0 {
				for _, p := range []string{"new.txt", "sub/b.txt", "../escape.txt"} {
					if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
						t.Errorf("%s was created by a failed patch", p)
					}
				}
				if _, err := os.Stat(filepath.Join(dir, "gone.txt")); err != nil {
					t.Errorf("gone.txt was deleted by a failed patch")
				}
			}
		})
	}
}

func TestToolsFlagRejectsUnknownNames(t *testing.T) {
	t.Parallel()
	r := openseek(t, t.TempDir(), "", nil, "run", "--no-session", "--api-url", "http://127.0.0.1:1/v1/chat/completions", "--model", "m", "--tools", "+grepp", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, `--tools: unknown tool "grepp"; known tools: apply_patch, edit,`) {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
}
