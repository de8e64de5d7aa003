package beneath

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
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
	// The root itself may be reached through a symlink: it is the caller's.
	if err := os.Symlink(dir, dir+"-link"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(dir + "-link") })
	if b, err := open(t, dir+"-link").ReadFile("a/old.txt"); err != nil || string(b) != "replaced\n" {
		t.Errorf("through a symlinked root: %q, %v", b, err)
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

// TestWriteFileByPath: the path variant replaces the file atomically with
// the mode asked for, replaces a symlink instead of writing through it,
// and leaves no temporary file behind, also when it fails.
func TestWriteFileByPath(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := WriteFile(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o640); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode())
	}
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o600)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("wrote through the symlink: %q", b)
	}
	if fi, _ := os.Lstat(link); !fi.Mode().IsRegular() {
		t.Errorf("the symlink was not replaced: %v", fi.Mode())
	}
	// A directory in the way: the rename fails, the temporary file goes.
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "x"), nil, 0o600)
	if err := WriteFile(filepath.Join(dir, "d"), []byte("x"), 0o600); err == nil {
		t.Error("replacing a non-empty directory succeeded")
	}
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("x"), 0o600); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("missing directory: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "d f.json link target" {
		t.Errorf("directory holds %s", got)
	}
}
