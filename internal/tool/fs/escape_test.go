package fs

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/tool"
)

// escapeEnv is a workspace beside an "outside" directory, with symlinks
// leading out of it.
func escapeEnv(t *testing.T) (*tool.Env, string) {
	t.Helper()
	env := newEnv(t, map[string]string{"in.txt": "inside\n"})
	outside := filepath.Join(filepath.Dir(env.Workspace), filepath.Base(env.Workspace)+"-outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"out-dir":  outside,
		"out-file": filepath.Join(outside, "secret.txt"),
		"out-new":  filepath.Join(outside, "created.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(env.Workspace, name)); err != nil {
			t.Fatal(err)
		}
	}
	// The agent "created" the outside file, so provenance would allow
	// remove if the path check did not stop it first.
	env.Files.MarkCreated(filepath.Join(outside, "secret.txt"), []byte("secret\n"))
	return env, outside
}

func TestEscapesRefusedByEveryTool(t *testing.T) {
	rel := func(ws, outside string) string { r, _ := filepath.Rel(ws, outside); return r }
	paths := []struct {
		name string
		path func(ws, outside string) string
	}{
		{"dot-dot", func(ws, out string) string { return rel(ws, out) + "/secret.txt" }},
		{"absolute", func(_, out string) string { return out + "/secret.txt" }},
		{"symlinked dir", func(string, string) string { return "out-dir/secret.txt" }},
		{"symlinked file", func(string, string) string { return "out-file" }},
		{"dangling symlink", func(string, string) string { return "out-new" }},
		{"new file via symlinked dir", func(string, string) string { return "out-dir/new/deep.txt" }},
	}
	calls := []struct {
		tool tool.Tool
		args func(p string) map[string]any
	}{
		{Read(), func(p string) map[string]any { return map[string]any{"path": p} }},
		{Write(), func(p string) map[string]any { return map[string]any{"path": p, "content": "pwned\n"} }},
		{Edit(), func(p string) map[string]any {
			return map[string]any{"path": p, "old_string": "secret", "new_string": "pwned"}
		}},
		{Edit(), func(p string) map[string]any {
			return map[string]any{"path": p, "old_string": "", "new_string": "pwned", "start_line": 1}
		}},
		{MultiEdit(), func(p string) map[string]any {
			return map[string]any{"edits": []map[string]any{
				{"file": "in.txt", "old_string": "inside", "new_string": "changed", "start_line": 1},
				{"file": p, "old_string": "secret", "new_string": "pwned", "start_line": 1}}}
		}},
		{MultiEdit(), func(p string) map[string]any { return map[string]any{"edits_file": p} }},
		{Remove(), func(p string) map[string]any { return map[string]any{"path": p, "reason": "cleanup"} }},
	}
	for _, c := range calls {
		for _, p := range paths {
			t.Run(c.tool.Name+"/"+p.name, func(t *testing.T) {
				env, outside := escapeEnv(t)
				before, beforeOut := snapshot(t, env.Workspace), snapshot(t, outside)
				res := call(t, c.tool, env, c.args(p.path(env.Workspace, outside)))
				if !res.IsError {
					t.Fatalf("not refused: %s", res.Content.Text())
				}
				if text := res.Content.Text(); !strings.Contains(text, "outside the workspace") {
					t.Errorf("text %q does not say the path is outside the workspace", text)
				}
				if after := snapshot(t, outside); !maps.Equal(after, beforeOut) {
					t.Errorf("outside directory changed: %v -> %v", beforeOut, after)
				}
				if after := snapshot(t, env.Workspace); !maps.Equal(after, before) {
					t.Errorf("workspace changed: %v -> %v", before, after)
				}
			})
		}
	}
}
