package editprog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for name, content := range map[string]string{"a.txt": "one\ntwo\n", "sub/b.txt": "two\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755)
		os.WriteFile(filepath.Join(root, name), []byte(content), 0o644)
	}
	os.WriteFile(filepath.Join(outside, "c.txt"), []byte("two\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	env := func(allowed string) func(string) string {
		return func(k string) string {
			return map[string]string{"OPENSEEK_EDIT_ROOT": root, "OPENSEEK_EDIT_ALLOWED_PATHS": allowed}[k]
		}
	}
	for _, tc := range []struct {
		name, args, allowed string
		ok                  string // the "ok: …" message's start, or
		fail                string // the failure's start
		file, want          string // a file and its content after
	}{
		{name: "edit", args: `{"path":"a.txt","old_string":"two","new_string":"2"}`, ok: "ok: ", file: "a.txt", want: "one\n2\n"},
		{name: "not found", args: `{"path":"sub/b.txt","old_string":"nine","new_string":"9"}`, fail: "", file: "sub/b.txt", want: "two\n"},
		{name: "bad JSON", args: ` {"path": `, fail: "error: "},
		{name: "through a symlink", args: `{"path":"out/c.txt","old_string":"two","new_string":"2"}`,
			fail: "error editing out/c.txt: write blocked: path resolves outside the writable root " + root},
		{name: "dot dot", args: `{"path":"../x.txt","old_string":"two","new_string":"2"}`, fail: "error editing ../x.txt: write blocked: path resolves outside"},
		{name: "outside allowed", args: `{"path":"a.txt","old_string":"one","new_string":"1"}`, allowed: "sub, docs",
			fail: "error editing a.txt: write blocked: path is outside allowed_paths (sub, docs)", file: "a.txt", want: "one\n2\n"},
		{name: "inside allowed", args: `{"path":"sub/b.txt","old_string":"two","new_string":"2"}`, allowed: "docs" + string(filepath.ListSeparator) + "sub",
			ok: "ok: ", file: "sub/b.txt", want: "2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, err := Run(context.Background(), []byte(tc.args), env(tc.allowed))
			var f *Failure
			switch {
			case tc.ok != "" && (err != nil || !strings.HasPrefix(text, tc.ok)):
				t.Errorf("got %q, %v; want %q…", text, err, tc.ok)
			case tc.ok == "" && !errors.As(err, &f):
				t.Errorf("got %q, %v; want a failure", text, err)
			case tc.ok == "" && (!strings.HasPrefix(f.Msg, tc.fail) || f.Msg == ""):
				t.Errorf("failure %q, want %q…", f.Msg, tc.fail)
			}
			if tc.file != "" {
				if got, _ := os.ReadFile(filepath.Join(root, tc.file)); string(got) != tc.want {
					t.Errorf("%s is %q, want %q", tc.file, got, tc.want)
				}
			}
		})
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "c.txt")); string(got) != "two\n" {
		t.Errorf("the file outside the root was written: %q", got)
	}
	if _, err := Run(context.Background(), []byte(`{}`), func(k string) string {
		return map[string]string{"OPENSEEK_EDIT_ROOT": filepath.Join(root, "missing")}[k]
	}); err == nil || !strings.HasPrefix(err.Error(), "OPENSEEK_EDIT_ROOT="+filepath.Join(root, "missing")+": ") {
		t.Errorf("a missing root: %v", err)
	}
}
