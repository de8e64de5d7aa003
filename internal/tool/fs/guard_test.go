package fs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/beneath"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/tool"
)

// The write tools ask env.Guard after resolving the path: protected paths
// are refused in every mode, and plan mode refuses every write.
func TestWriteToolsObeyGuard(t *testing.T) {
	files := map[string]string{".git/config": "[core]\n", ".openseek/x": "x\n", "a.txt": "one\n"}
	tests := []struct {
		name string
		mode policy.Mode
		tl   tool.Tool
		args map[string]any
		file string // must be unchanged (or absent)
		want string
	}{
		{"write .git/config", policy.ModeFullAccess, Write(), map[string]any{"path": ".git/config", "content": "evil"}, ".git/config", "inside .git"},
		{"write through dot-dot", policy.ModeAlways, Write(), map[string]any{"path": "sub/../.git/hooks/pre-commit", "content": "evil"}, ".git/hooks/pre-commit", "inside .git"},
		{"write through a symlink to .git", policy.ModeFullAccess, Write(), map[string]any{"path": "g/config", "content": "evil"}, ".git/config", "inside .git"},
		{"edit .openseek/x", policy.ModeNever, Edit(), map[string]any{"path": ".openseek/x", "old_string": "x", "new_string": "y"}, ".openseek/x", "inside .openseek"},
		{"multi_edit .git/config", policy.ModeNever, MultiEdit(), map[string]any{"edits": []map[string]any{{"file": ".git/config", "start_line": 1, "old_string": "core", "new_string": "x"}}}, ".git/config", "inside .git"},
		{"plan write", policy.ModePlan, Write(), map[string]any{"path": "new.txt", "content": "x"}, "new.txt", "plan mode is read-only"},
		{"plan edit", policy.ModePlan, Edit(), map[string]any{"path": "a.txt", "old_string": "one", "new_string": "two"}, "a.txt", "plan mode is read-only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, files)
			if err := os.Symlink(".git", filepath.Join(env.Workspace, "g")); err != nil {
				t.Fatal(err)
			}
			env.Guard = &policy.Guard{Policy: &policy.Policy{Mode: tc.mode, Workspace: env.Workspace}}
			before, _ := os.ReadFile(filepath.Join(env.Workspace, tc.file))
			res := call(t, tc.tl, env, tc.args)
			text := res.Content.Text()
			if !res.IsError || !strings.Contains(text, "refused") || !strings.Contains(text, tc.want) {
				t.Errorf("result %q (error=%v), want a refusal naming %q", text, res.IsError, tc.want)
			}
			after, _ := os.ReadFile(filepath.Join(env.Workspace, tc.file))
			if string(after) != string(before) {
				t.Errorf("%s changed to %q", tc.file, after)
			}
		})
	}
}

func TestRemoveObeysGuard(t *testing.T) {
	env := newEnv(t, nil)
	if res := call(t, Write(), env, map[string]any{"path": "made.txt", "content": "x"}); res.IsError {
		t.Fatal(res.Content.Text())
	}
	g := &policy.Guard{Policy: &policy.Policy{Mode: policy.ModePlan, Workspace: env.Workspace}}
	env.Guard = g
	res := call(t, Remove(), env, map[string]any{"path": "made.txt", "reason": "cleanup"})
	if !res.IsError || !strings.Contains(res.Content.Text(), "plan mode is read-only") {
		t.Errorf("remove in plan mode: %q", res.Content.Text())
	}
	if _, err := os.Stat(filepath.Join(env.Workspace, "made.txt")); err != nil {
		t.Errorf("file removed despite the refusal: %v", err)
	}
	// Outside plan mode the same remove goes through.
	g.Policy.Mode = policy.ModeNever
	if res := call(t, Remove(), env, map[string]any{"path": "made.txt", "reason": "cleanup"}); res.IsError {
		t.Errorf("remove: %s", res.Content.Text())
	}
}

// The text of a call that met a symlink mid-way says what happened and
// what to do.
func TestSymlinkMidwayText(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &beneath.WalkError{Op: "write", Path: "d", Err: beneath.ErrSymlink})
	text := describeErr(err)
	for _, want := range []string{"d is a symbolic link now", "Nothing was written", "Run the tool again"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q lacks %q", text, want)
		}
	}
	// apply_patch's files say the same.
	env := newEnv(t, map[string]string{"real/x": "x\n"})
	if err := os.Symlink("real", filepath.Join(env.Workspace, "d")); err != nil {
		t.Fatal(err)
	}
	err = rootFS{env}.WriteAtomic(filepath.Join(env.Workspace, "d/x"), []byte("y\n"), 0o644)
	if err == nil || !strings.Contains(err.Error(), "d is a symbolic link now") || !errors.Is(err, beneath.ErrSymlink) {
		t.Errorf("rootFS: %v", err)
	}
}
