package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workspace makes a workspace with a file, a subdirectory, an outside
// directory and symlinks of every kind.
func workspace(t *testing.T) (ws, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(ws, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(ws, "a.txt"), filepath.Join(outside, "secret")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"in-link":       "sub",                              // relative, inside
		"out-dir":       outside,                            // directory outside
		"out-file":      filepath.Join(outside, "secret"),   // file outside
		"dangling-out":  filepath.Join(outside, "new-file"), // not yet existing, outside
		"sub/up":        "..",                               // back to the workspace root
		"sub/up2":       "../..",                            // above the root
		"loop1":         "loop2",                            // a cycle
		"loop2":         "loop1",                            //
		"dangling-in":   "sub/not-yet",                      // not yet existing, inside
		"chain":         "in-link/up",                       // link through links
		"chain-out":     "sub/up2/out",                      // chain ending outside
		"abs-inside":    filepath.Join(ws, "sub"),           // absolute, inside
		"sub/rel-out":   "../../out/secret",                 // relative, outside
		"sub/deep/link": "x",                                // parent created below
	}
	if err := os.MkdirAll(filepath.Join(ws, "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func TestResolve(t *testing.T) {
	ws, outside := workspace(t)
	env := &Env{Workspace: ws}
	tests := []struct {
		path    string
		want    string // relative to ws; "" when an error is expected
		wantErr string
	}{
		{"a.txt", "a.txt", ""},
		{"./sub/../a.txt", "a.txt", ""},
		{ws + "/a.txt", "a.txt", ""},
		{"new/dir/file.go", "new/dir/file.go", ""},
		{".", ".", ""},
		{"in-link/x.go", "sub/x.go", ""},
		{"sub/up/a.txt", "a.txt", ""},
		{"chain/a.txt", "a.txt", ""},
		{"abs-inside/f", "sub/f", ""},
		{"dangling-in", "sub/not-yet", ""},
		{"../x", "", `path "../x" is outside the workspace ` + ws},
		{"sub/../../out/secret", "", "outside the workspace"},
		{outside + "/secret", "", "outside the workspace"},
		{"/etc/passwd", "", "outside the workspace"},
		{"out-dir/secret", "", "outside the workspace"},
		{"out-dir", "", "outside the workspace"},
		{"out-file", "", "outside the workspace"},
		{"dangling-out", "", "outside the workspace"},
		{"sub/up2/out/secret", "", "outside the workspace"},
		{"chain-out", "", "outside the workspace"},
		{"sub/rel-out", "", "outside the workspace"},
		{"loop1", "", "too many levels of symbolic links"},
		{"", "", "empty path"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := env.Resolve(tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve(%q) = %q, %v; want error containing %q", tt.path, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.path, err)
			}
			if want := filepath.Join(ws, tt.want); got != want {
				t.Fatalf("Resolve(%q) = %q, want %q", tt.path, got, want)
			}
			if rel := env.Rel(got); rel != filepath.ToSlash(tt.want) {
				t.Errorf("Rel(%q) = %q, want %q", got, rel, tt.want)
			}
		})
	}
}

func TestResolveRootsAndSymlinkedWorkspace(t *testing.T) {
	ws, outside := workspace(t)
	env := &Env{Workspace: ws, Roots: []string{outside}}
	got, err := env.Resolve("out-file")
	if err != nil || got != filepath.Join(outside, "secret") {
		t.Fatalf("with Roots, Resolve(out-file) = %q, %v", got, err)
	}
	if env.Rel(got) != got {
		t.Errorf("Rel of a path outside the workspace = %q, want it unchanged", env.Rel(got))
	}

	// A workspace reached through a symlink still contains its files.
	link := filepath.Join(filepath.Dir(ws), "ws-link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	env = &Env{Workspace: link}
	got, err = env.Resolve("a.txt")
	if err != nil || got != filepath.Join(ws, "a.txt") {
		t.Fatalf("Resolve through a symlinked workspace = %q, %v", got, err)
	}
	if env.Rel(got) != "a.txt" {
		t.Errorf("Rel = %q, want a.txt", env.Rel(got))
	}
	if _, err := (*Env)(nil).Resolve("a"); err == nil {
		t.Error("nil Env resolved a path")
	}
}
