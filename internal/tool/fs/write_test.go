package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/tool"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name        string
		args        string
		want        string
		file        string // path whose content is checked
		content     string
		wantOutcome string
	}{
		{"create", `{"path":"new.txt","content":"hello"}`, "ok: wrote 5 chars to new.txt", "new.txt", "hello", "created"},
		{"create with parents", `{"path":"a/b/c.go","content":"package c\n"}`, "ok: wrote 10 chars to a/b/c.go", "a/b/c.go", "package c\n", "created"},
		{"counts characters, not bytes", `{"path":"u.txt","content":"héllo 😀"}`, "ok: wrote 7 chars to u.txt", "u.txt", "héllo 😀", "created"},
		{"empty content makes an empty file", `{"path":"e.txt","content":""}`, "ok: wrote 0 chars to e.txt", "e.txt", "", "created"},
		{"overwrite", `{"path":"old.txt","content":"new"}`, "ok: wrote 3 chars to old.txt", "old.txt", "new", "overwritten"},
		{"through a symlink inside", `{"path":"link.txt","content":"via link"}`, "ok: wrote 8 chars to link.txt", "old.txt", "via link", "overwritten"},
		{"through a symlinked directory inside", `{"path":"docs/new.txt","content":"via dir"}`, "ok: wrote 7 chars to docs/new.txt", "dir/new.txt", "via dir", "created"},
		{"directory", `{"path":"dir","content":"x"}`, "error writing dir: is a directory", "old.txt", "before", "error"},
		{"parent is a file", `{"path":"old.txt/x","content":"x"}`, "error writing old.txt/x: not a directory", "old.txt", "before", "error"},
		{"missing content", `{"path":"x.txt"}`, "error: write requires arguments.content", "old.txt", "before", ""},
		{"content not a string", `{"path":"x.txt","content":3}`, "error: write requires arguments.content", "old.txt", "before", ""},
		{"missing path", `{"content":"x"}`, "error: write requires arguments.path", "old.txt", "before", ""},
		{"not an object", `[]`, "error: write requires object arguments", "old.txt", "before", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, map[string]string{"old.txt": "before", "dir/keep": ""})
			if err := os.Symlink("old.txt", filepath.Join(env.Workspace, "link.txt")); err != nil {
				t.Fatal(err)
			}
			// A symlink already there when the tool runs is followed, to
			// where it points in the workspace.
			if err := os.Symlink("dir", filepath.Join(env.Workspace, "docs")); err != nil {
				t.Fatal(err)
			}
			res := call(t, Write(), env, tt.args)
			if got := res.Content.Text(); got != tt.want {
				t.Fatalf("text = %q, want %q", got, tt.want)
			}
			if got := readFile(t, env, tt.file); got != tt.content {
				t.Errorf("%s = %q, want %q", tt.file, got, tt.content)
			}
			if tt.wantOutcome != "" {
				if d := outcome(t, res); d.Outcome != tt.wantOutcome {
					t.Errorf("outcome = %q, want %q", d.Outcome, tt.wantOutcome)
				}
			}
			if fi, err := os.Lstat(filepath.Join(env.Workspace, "link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("link.txt is no longer a symlink")
			}
		})
	}
}

func TestWriteKeepsModeAndRecordsProvenance(t *testing.T) {
	env := newEnv(t, map[string]string{"secret.env": "A=1"})
	p := filepath.Join(env.Workspace, "secret.env")
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if res := call(t, Write(), env, `{"path":"secret.env","content":"A=2"}`); res.IsError {
		t.Fatal(res.Content.Text())
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode after overwrite = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if env.Files.CreatedUnchanged(p, []byte("A=2")) {
		t.Error("overwriting the user's file made it agent-created")
	}

	res := call(t, Write(), env, `{"path":"n/new.txt","content":"x"}`)
	np := filepath.Join(env.Workspace, "n/new.txt")
	if !env.Files.CreatedUnchanged(np, []byte("x")) {
		t.Error("a created file is not recorded as agent-created")
	}
	if fi, err := os.Stat(np); err != nil || fi.Mode().Perm() != newFileMode {
		t.Errorf("new file mode = %v, want %v", fi.Mode().Perm(), newFileMode)
	}
	if d := outcome(t, res); d.Path != "n/new.txt" || res.Brief != "write new.txt" {
		t.Errorf("data %+v brief %q", d, res.Brief)
	}
}

func TestCancelledContextTouchesNothing(t *testing.T) {
	env := newEnv(t, map[string]string{"a.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := []struct {
		tool tool.Tool
		args string
	}{
		{Write(), `{"path":"new.txt","content":"x"}`},
		{Edit(), `{"path":"a.txt","old_string":"a","new_string":"b"}`},
		{MultiEdit(), `{"edits":[{"file":"a.txt","old_string":"a","new_string":"b","start_line":1}]}`},
		{Read(), `{"path":"a.txt"}`},
	}
	for _, c := range calls {
		res, err := c.tool.Run(ctx, env, json.RawMessage(c.args))
		if err != nil || !res.IsError || !strings.Contains(res.Content.Text(), "context canceled") {
			t.Errorf("%s under a cancelled context: %q, %v", c.tool.Name, res.Content.Text(), err)
		}
	}
	if got := snapshot(t, env.Workspace); len(got) != 1 || got[filepath.Join(env.Workspace, "a.txt")] != "a\n" {
		t.Errorf("workspace changed: %v", got)
	}
}
