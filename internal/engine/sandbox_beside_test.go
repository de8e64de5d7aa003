package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openseek/openseek/internal/sandbox"
)

// A protected directory that holds the workspace (~/.openseek holding a
// fleet task's workspace) gives way to its neighbours along the way, those
// a writable root reaches; the others stay as they are.
func TestBesideWorkspace(t *testing.T) {
	home := t.TempDir()
	dot := filepath.Join(home, ".openseek")
	ws := filepath.Join(dot, "fleet", "work", "t1")
	for _, d := range []string{ws, filepath.Join(dot, "fleet", "work", "t2"), filepath.Join(dot, "fleet", "jetstream"), filepath.Join(dot, "skills")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dot, "config.toml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ro := []string{filepath.Join(ws, ".git"), filepath.Join(ws, ".openseek"), dot, "/etc/elsewhere"}
	// A home inside a writable root (/tmp): every neighbour needs a bind.
	got := besideWorkspace(sandbox.Policy{Workspace: ws, ReadOnly: ro, WritableRoots: []string{filepath.Dir(home)}})
	want := []string{
		filepath.Join(ws, ".git"), filepath.Join(ws, ".openseek"),
		filepath.Join(dot, "config.toml"), filepath.Join(dot, "skills"),
		filepath.Join(dot, "fleet", "jetstream"),
		filepath.Join(dot, "fleet", "work", "t2"),
		"/etc/elsewhere",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("home in a writable root:\n got %v\nwant %v", got, want)
	}
	// A home no writable root reaches: Landlock keeps the neighbours.
	got = besideWorkspace(sandbox.Policy{Workspace: ws, ReadOnly: ro, WritableRoots: []string{"/var/tmp"}})
	if want := []string{filepath.Join(ws, ".git"), filepath.Join(ws, ".openseek"), "/etc/elsewhere"}; !slices.Equal(got, want) {
		t.Errorf("home outside the writable roots:\n got %v\nwant %v", got, want)
	}
}
