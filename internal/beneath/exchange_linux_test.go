package beneath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/openseek/openseek/internal/beneath/beneathtest"
)

// Avoided directories are recognised by what they are, not their name:
// reachable for reading, never changed, also when renamed into the path.
func TestAvoidedDirectories(t *testing.T) {
	dir := tree(t, map[string]string{".git/config": "[core]\n", ".git/hooks/README": "hooks\n", "d/x": "x\n"})
	git := filepath.Join(dir, ".git")
	set := Identify(git, filepath.Join(dir, "missing"), filepath.Join(dir, "d/x"))
	r, err := Open(dir, set)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if b, err := r.ReadFile(".git/config"); err != nil || string(b) != "[core]\n" {
		t.Errorf("reading an avoided directory: %q, %v", b, err)
	}
	before := contents(t, dir)
	changes := map[string]func() error{
		"write":        func() error { return r.WriteFile(".git/config", []byte("pwned"), 0o644) },
		"write deeper": func() error { return r.WriteFile(".git/hooks/pre-commit", []byte("pwned"), 0o755) },
		"mkdir":        func() error { return r.MkdirAll(".git/hooks/sub", 0o755) },
		"remove":       func() error { return r.Remove(".git/hooks/README") },
		"remove dir":   func() error { return r.Remove(".git") },
		"symlink":      func() error { return r.Symlink("x", ".git/hooks/post-merge") },
	}
	for name, f := range changes {
		if err := f(); !errors.Is(err, ErrAvoided) {
			t.Errorf("%s: %v, want ErrAvoided", name, err)
		}
	}
	// The repository renamed to d: its new name does not matter.
	if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(dir, "d"), unix.AT_FDCWD, git, unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile("d/config", []byte("pwned"), 0o644); !errors.Is(err, ErrAvoided) {
		t.Errorf("write into the renamed repository: %v", err)
	}
	later, err := Open(dir, set) // the Set, not the names at Open, decides
	if err != nil {
		t.Fatal(err)
	}
	defer later.Close()
	if err := later.MkdirAll("d/hooks/x", 0o755); !errors.Is(err, ErrAvoided) {
		t.Errorf("mkdir in the renamed repository: %v", err)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(dir, "d"), unix.AT_FDCWD, git, unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	if after := contents(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("tree changed: %v -> %v", before, after)
	}
	if err := r.WriteFile("d/y", []byte("y"), 0o644); err != nil {
		t.Errorf("a write elsewhere: %v", err)
	}
}

// TestExchangeRace keeps exchanging a directory d with a symlink to .git
// (and, separately, with .git itself) while d/config is written: writes
// may fail, but none lands in .git and no temporary file is left there.
func TestExchangeRace(t *testing.T) {
	for _, swap := range []string{"symlink", "directory"} {
		t.Run(swap, func(t *testing.T) {
			dir := tree(t, map[string]string{".git/config": "[core]\n", ".git/hooks/README": "hooks\n", "d/config": "mine\n"})
			git := filepath.Join(dir, ".git")
			other := git
			if swap == "symlink" {
				other = filepath.Join(dir, "link")
				if err := os.Symlink(".git", other); err != nil {
					t.Fatal(err)
				}
			}
			r := open(t, dir, git)
			stop := beneathtest.Exchange(filepath.Join(dir, "d"), other)
			var landed int
			errs := map[string]int{}
			for i := range 400 {
				if err := r.WriteFile("d/config", []byte(fmt.Sprintf("pwned %d\n", i)), 0o644); err == nil {
					landed++
				} else {
					errs[err.Error()]++
				}
				_ = r.WriteFile("d/hooks/pre-commit", []byte("pwned\n"), 0o755)
				_ = r.MkdirAll("d/hooks/sub", 0o755)
			}
			swaps := stop()
			t.Logf("%d swaps, %d writes landed in d, errors %v", swaps, landed, errs)
			got := contents(t, git)
			if want := map[string]string{"config": "[core]\n", "hooks/README": "hooks\n"}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf(".git is now %v", got)
			}
			for name := range contents(t, dir) {
				if strings.Contains(name, ".openseek-") {
					t.Errorf("temporary file left: %s", name)
				}
			}
		})
	}
}
