package snapshot

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

func TestExtract(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "first\n", "dir/b.txt": "bee\n"})
	r := open(t, ws)
	id, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The workspace moves on; the copy is of the snapshot, and the
	// workspace is left as it is.
	write(t, ws, map[string]string{"a.txt": "changed\n", "c.txt": "new\n"})
	dest := t.TempDir()
	if err := r.Extract(ctx, id, dest); err != nil {
		t.Fatal(err)
	}
	if got, want := tree(t, dest), map[string]string{"a.txt": "first\n", "dir/b.txt": "bee\n"}; !maps.Equal(got, want) {
		t.Errorf("extracted %v, want %v", got, want)
	}
	if got, want := tree(t, ws), map[string]string{"a.txt": "changed\n", "c.txt": "new\n", "dir/b.txt": "bee\n"}; !maps.Equal(got, want) {
		t.Errorf("the workspace became %v", got)
	}
	// A copy of the files alone, not a repository.
	if _, err := os.Stat(filepath.Join(dest, ".git")); err == nil {
		t.Error("the copy holds a .git")
	}
	if err := r.Extract(ctx, "0123456789abcdef0123456789abcdef01234567", t.TempDir()); !errors.Is(err, ErrUnknownSnapshot) {
		t.Errorf("unknown id: %v", err)
	}
	if err := open(t, t.TempDir()).Extract(ctx, id, t.TempDir()); !errors.Is(err, ErrUnknownSnapshot) {
		t.Errorf("no repository: %v", err)
	}
}
