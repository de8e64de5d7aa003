package patch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/openseek/openseek/internal/beneath"
)

// A directory swapped for a symlink between planning and writing (by a
// command running meanwhile) is not written through, even to a place
// inside the workspace: the commit fails, the link's target is untouched
// and no temporary file is left.
func TestCommitFollowsNoSymlinkSwappedIn(t *testing.T) {
	ws := t.TempDir()
	tree(t, ws, map[string]string{"d/config": "mine\n", ".git/config": "[core]\n"})
	if err := os.Symlink(".git", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	p, err := Parse("*** Begin Patch\n*** Update File: d/config\n@@\n-mine\n+[core]\n+\tfsmonitor = touch pwned\n*** Add File: d/hooks/pre-commit\n+pwned\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := p.Plan(files(ws))
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(ws, "d"), unix.AT_FDCWD, filepath.Join(ws, "link"), unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	if err := pl.Commit(); err == nil || !strings.Contains(err.Error(), "d "+beneath.ErrSymlink.Error()) {
		t.Fatalf("commit: %v, want d refused as a symlink", err)
	}
	check(t, ws, map[string]string{".git/config": "[core]\n", ".git/hooks/pre-commit": absent, "link/config": "mine\n"})
	filepath.WalkDir(ws, func(p string, _ os.DirEntry, err error) error {
		if err == nil && strings.Contains(filepath.Base(p), ".openseek-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}
