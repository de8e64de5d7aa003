package fs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/openseek/openseek/internal/tool"
)

// FuzzEditArgs feeds arbitrary argument bytes to edit over a small file:
// it must never panic, answer a non-ArgError error, or touch anything
// outside the workspace.
func FuzzEditArgs(f *testing.F) {
	seeds := []string{
		`{"path":"f.txt","old_string":"two","new_string":"2","start_line":2}`,
		`{"path":"f.txt","old_string":"","new_string":"x\n","start_line":4}`,
		`{"path":"f.txt","old_string":"a\nb","new_string":"z"}`,
		`{"path":"../out.txt","old_string":"secret","new_string":"pwned"}`,
		`{"path":"link/out.txt","old_string":"secret","new_string":"pwned"}`,
		`{"path":"f.txt","old_string":"one","new_string":"1","start_line":-3,"end_line":99}`,
		`{"path":"f.txt","old_string":"\r\n","new_string":"\n","replace_all":true}`,
		`{"path":5}`, `[]`, `{`, ``, `null`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	base := f.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out.txt")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("secret\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink(base, filepath.Join(ws, "link")); err != nil {
		f.Fatal(err)
	}
	edit := Edit()
	f.Fuzz(func(t *testing.T, args []byte) {
		if err := os.WriteFile(filepath.Join(ws, "f.txt"), []byte("one\r\ntwo\nthree\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		env := &tool.Env{Workspace: ws, Files: tool.NewFileState()}
		res, err := edit.Run(context.Background(), env, json.RawMessage(args))
		var ae *tool.ArgError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("non-argument error %v", err)
		}
		if err == nil && len(res.Data) > 0 && !json.Valid(res.Data) {
			t.Fatalf("invalid Data %q", res.Data)
		}
		if b, err := os.ReadFile(out); err != nil || string(b) != "secret\n" {
			t.Fatalf("outside file changed: %q %v", b, err)
		}
		entries, err := os.ReadDir(base)
		if err != nil || len(entries) != 2 {
			t.Fatalf("something was created beside the workspace: %v %v", entries, err)
		}
	})
}
