package beneath

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// tree makes a directory holding files (name → content) and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func open(t *testing.T, dir string, avoid ...string) *Root {
	t.Helper()
	r, err := Open(dir, Identify(avoid...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// contents maps every file and link under dir to its content or target.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWriteReadRemove(t *testing.T) {
	dir := tree(t, map[string]string{"a/old.txt": "old\n"})
	r := open(t, dir)
	if err := r.MkdirAll("a/b/c", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile("a/b/c/new.txt", []byte("new\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile("a/old.txt", []byte("replaced\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := r.ReadFile("a/b/c/new.txt"); err != nil || string(b) != "new\n" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	fi, err := r.Lstat("a/old.txt")
	if err != nil || fi.Mode() != 0o600 || fi.Size() != 9 || fi.Name() != "old.txt" {
		t.Errorf("Lstat = %v %v %v, %v", fi.Name(), fi.Mode(), fi.Size(), err)
	}
	if fi, err := r.Lstat("a/b"); err != nil || !fi.IsDir() {
		t.Errorf("Lstat dir = %v, %v", fi, err)
	}
	if got, want := contents(t, dir), map[string]string{"a/old.txt": "replaced\n", "a/b/c/new.txt": "new\n"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tree %v, want %v (no temporary file left)", got, want)
	}
	if err := r.Remove("a/b/c/new.txt"); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove("a/b/c"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a/b/c")); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("a/b/c still there: %v", err)
	}
	if err := r.Remove("a"); !errors.Is(err, unix.ENOTEMPTY) && !errors.Is(err, unix.EEXIST) {
		t.Errorf("Remove of a non-empty directory: %v", err)
	}
	f, err := r.Open(".")
	if err != nil {
		t.Fatal(err)
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	if fmt.Sprint(names) != "[a]" {
		t.Errorf("Open(.) lists %v", names)
	}
}

// A symlink is never followed: not through a directory (the call fails
// naming it), not at the last component (a write replaces the link, a
// remove removes the link).
func TestSymlinksAreNotFollowed(t *testing.T) {
	dir := tree(t, map[string]string{"target/f.txt": "target\n", "real/x": "x\n"})
	os.Symlink("target", filepath.Join(dir, "linkdir"))
	os.Symlink("target/f.txt", filepath.Join(dir, "linkfile"))
	os.Symlink("target/f.txt", filepath.Join(dir, "linkgone"))
	r := open(t, dir)
	for name, f := range map[string]func() error{
		"write":   func() error { return r.WriteFile("linkdir/f.txt", []byte("pwned"), 0o644) },
		"new":     func() error { return r.WriteFile("linkdir/new.txt", []byte("pwned"), 0o644) },
		"mkdir":   func() error { return r.MkdirAll("linkdir/sub", 0o755) },
		"remove":  func() error { return r.Remove("linkdir/f.txt") },
		"symlink": func() error { return r.Symlink("x", "linkdir/l") },
		"read":    func() error { _, err := r.ReadFile("linkdir/f.txt"); return err },
		"lstat":   func() error { _, err := r.Lstat("linkdir/f.txt"); return err },
		"open":    func() error { _, err := r.ReadFile("linkfile"); return err },
	} {
		err := f()
		var pe *WalkError
		if !errors.Is(err, ErrSymlink) || !errors.As(err, &pe) {
			t.Errorf("%s: %v, want ErrSymlink", name, err)
			continue
		}
		if want := "linkdir"; name != "open" && pe.Path != want {
			t.Errorf("%s: error names %q, want the link %q", name, pe.Path, want)
		}
	}
	if fi, err := r.Lstat("linkfile"); err != nil || fi.Mode()&iofs.ModeSymlink == 0 {
		t.Errorf("Lstat of a link = %v, %v", fi, err)
	}
	if err := r.WriteFile("linkfile", []byte("replaced\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove("linkgone"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"target/f.txt": "target\n", "real/x": "x\n", "linkdir": "-> target", "linkfile": "replaced\n"}
	if got := contents(t, dir); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tree %v, want %v", got, want)
	}
	if err := r.Symlink("../target/f.txt", "real/l"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.Readlink(filepath.Join(dir, "real/l")); got != "../target/f.txt" {
		t.Errorf("Symlink made %q", got)
	}
}

func TestEscapesRefused(t *testing.T) {
	parent := tree(t, map[string]string{"root/in": "in\n", "secret": "secret\n"})
	r := open(t, filepath.Join(parent, "root"))
	for _, name := range []string{"../secret", "/etc/passwd", "", "a/../../secret"} {
		if _, err := r.ReadFile(name); !errors.Is(err, ErrEscape) {
			t.Errorf("ReadFile(%q): %v, want ErrEscape", name, err)
		}
		if err := r.WriteFile(name, []byte("pwned"), 0o644); !errors.Is(err, ErrEscape) {
			t.Errorf("WriteFile(%q): %v, want ErrEscape", name, err)
		}
	}
	if err := r.WriteFile(".", []byte("x"), 0o644); err == nil {
		t.Errorf("WriteFile(.) succeeded")
	}
	if b, _ := os.ReadFile(filepath.Join(parent, "secret")); string(b) != "secret\n" {
		t.Errorf("secret changed: %q", b)
	}
}

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
			var stop atomic.Bool
			var swaps atomic.Int64
			var wg sync.WaitGroup
			wg.Go(func() {
				d := filepath.Join(dir, "d")
				for !stop.Load() {
					if unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, other, unix.RENAME_EXCHANGE) == nil {
						swaps.Add(1)
					}
				}
			})
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
			stop.Store(true)
			wg.Wait()
			if swaps.Load()%2 == 1 {
				unix.Renameat2(unix.AT_FDCWD, filepath.Join(dir, "d"), unix.AT_FDCWD, other, unix.RENAME_EXCHANGE)
			}
			t.Logf("%d swaps, %d writes landed in d, errors %v", swaps.Load(), landed, errs)
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

// BenchmarkWriteFile replaces a small file two directories down.
func BenchmarkWriteFile(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src/pkg"), 0o755); err != nil {
		b.Fatal(err)
	}
	r, err := Open(dir, Set{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	data := []byte("package pkg\n\nfunc A() {}\n")
	for b.Loop() {
		if err := r.WriteFile("src/pkg/a.go", data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
