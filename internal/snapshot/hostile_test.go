package snapshot

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// marks lists the marks the planted programs left in dir.
func marks(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*"))
	return m
}

// hostileConfig is git configuration that defines the drivers the
// workspace's .gitattributes select, and fsmonitor, each writing a
// marker into dir.
func hostileConfig(dir string) string {
	touch := func(name string) string { return "touch " + filepath.Join(dir, name) }
	return "[core]\n\tfsmonitor = \"" + touch("fsmonitor") + "; exit 1\"\n" +
		"[filter \"evil\"]\n\tclean = \"" + touch("clean") + "; cat\"\n\tsmudge = \"" + touch("smudge") + "; cat\"\n\trequired = true\n" +
		"[filter \"proc\"]\n\tprocess = \"" + touch("process") + "\"\n"
}

// TestWorkspaceAttributesRunNothingAndChangeNoBytes: the workspace's
// .gitattributes select filter drivers (defined in the user's global git
// configuration, in the workspace's own .git/config, in a nested
// repository's config) and ask for line-ending, $Id$ and encoding
// conversion. A snapshot and a restore run no driver and put back the
// files' exact bytes.
func TestWorkspaceAttributesRunNothingAndChangeNoBytes(t *testing.T) {
	ctx := context.Background()
	mk := t.TempDir()
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(hostileConfig(mk)), 0o644)
	os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "git", "attributes"), []byte("* filter=evil\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))

	ws := t.TempDir()
	userGit(t, ws, "init", "-q")
	f, _ := os.OpenFile(filepath.Join(ws, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(hostileConfig(mk))
	f.Close()
	files := map[string]string{
		".gitattributes": "* filter=evil text eol=crlf ident\nproc.txt filter=proc\nutf.txt working-tree-encoding=UTF-16LE\n",
		"lf.txt":         "a\nb\n",
		"crlf.txt":       "a\r\nb\r\n",
		"mixed.txt":      "a\r\nb\nc\r",
		"id.txt":         "$Id$\n",
		"proc.txt":       "process me\n",
		"utf.txt":        "plain bytes\n",
	}
	write(t, ws, files)
	// The payload is live: plain git with this home runs the drivers.
	if out, err := exec.Command("git", "-C", ws, "add", "lf.txt", "proc.txt").CombinedOutput(); err != nil {
		t.Logf("plain git add: %v %s", err, out)
	}
	if len(marks(mk)) == 0 {
		t.Fatal("plain git ran none of the planted drivers: the test's payload is not live")
	}
	userGit(t, ws, "reset", "-q")
	// A nested repository of the model's making, with its own config.
	os.MkdirAll(filepath.Join(ws, "nested", ".git"), 0o755)
	userGit(t, filepath.Join(ws, "nested"), "init", "-q")
	f, _ = os.OpenFile(filepath.Join(ws, "nested", ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(hostileConfig(mk))
	f.Close()
	write(t, ws, map[string]string{"nested/.gitattributes": "* filter=evil\n", "nested/n.txt": "n\n"})
	for _, m := range marks(mk) {
		os.Remove(m)
	}

	r := open(t, ws)
	id, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := tree(t, ws)
	edits := map[string]string{}
	for p := range files {
		edits[p] = "changed\n"
	}
	write(t, ws, edits)
	if _, err := r.Restore(ctx, id); err != nil {
		t.Fatal(err)
	}
	got := tree(t, ws)
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s restored as %q, want %q", p, got[p], w)
		}
	}
	if m := marks(mk); len(m) != 0 {
		t.Errorf("a snapshot or restore ran planted programs: %v", m)
	}
}

// A restore writes no file beneath a symbolic link: a directory of the
// snapshot that became a link (to the user's .git/hooks, or outside the
// workspace) is replaced by the directory, and the link's target is left
// as it was, also when the link appears after the restore's own
// snapshot (git's checkout, here run directly, checks every leading
// directory).
func TestRestoreWritesNoFileBeneathASymlink(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	userGit(t, ws, "init", "-q")
	outside := t.TempDir()
	write(t, ws, map[string]string{"hooks/pre-commit": "#!/bin/sh\necho planted\n", "conf/settings": "mine\n", "d/f": "1\n"})
	r := open(t, ws)
	id, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"hooks": filepath.Join(ws, ".git", "hooks"), "conf": outside} {
		if err := os.RemoveAll(filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Restore(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("the restore wrote into .git/hooks through a symlink")
	}
	if m := marks(outside); len(m) != 0 {
		t.Errorf("the restore wrote outside the workspace through a symlink: %v", m)
	}
	for _, name := range []string{"hooks", "conf"} {
		if st, err := os.Lstat(filepath.Join(ws, name)); err != nil || !st.IsDir() {
			t.Errorf("%s is not a directory again: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "conf", "settings")); string(b) != "mine\n" {
		t.Errorf("conf/settings %q", b)
	}

	// The link appears between the restore's snapshot and its checkout.
	write(t, ws, map[string]string{"d/f": "2\n"})
	current, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	write(t, outside, map[string]string{"f": "2\n"})
	os.RemoveAll(filepath.Join(ws, "d"))
	if err := os.Symlink(outside, filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	_, _ = r.git(ctx, "read-tree", "-m", "-u", current, id) // refused or done: either way, not through d
	if b, _ := os.ReadFile(filepath.Join(outside, "f")); string(b) != "2\n" {
		t.Errorf("git wrote through a symlinked directory: outside/f = %q", b)
	}
}

// An earlier version's store moves into the new one on first use: its
// snapshot ids restore, its branch goes on from its last snapshot, and
// its config, hooks and alternates stay behind with it (gone).
func TestEarlierStoreMovesIntoTheNewOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "one\n"})
	old := filepath.Join(ws, ".openseek", DirName)
	lr, err := Open(Options{Workspace: ws, Dir: old})
	if err != nil {
		t.Fatal(err)
	}
	first, err := lr.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, map[string]string{"a.txt": "two\n"})
	last, err := lr.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mk := t.TempDir()
	f, _ := os.OpenFile(filepath.Join(old, "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(hostileConfig(mk))
	f.Close()
	write(t, old, map[string]string{"objects/info/alternates": t.TempDir() + "\n", "hooks/post-checkout": "#!/bin/sh\ntouch " + filepath.Join(mk, "hook") + "\n"})
	os.Chmod(filepath.Join(old, "hooks", "post-checkout"), 0o755)

	r, err := Open(Options{Workspace: ws, Dir: filepath.Join(t.TempDir(), "store"), Legacy: old})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Restore(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "one\n" {
		t.Errorf("a.txt %q after restoring an old snapshot", b)
	}
	// The files had not changed since the old store's last snapshot:
	// the branch came along, so that is the state saved.
	if res.Saved != last {
		t.Errorf("saved %s, want the old store's last snapshot %s", res.Saved, last)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("the old store is still there")
	}
	cfg, _ := os.ReadFile(filepath.Join(r.Dir(), "config"))
	if strings.Contains(string(cfg), "filter") || strings.Contains(string(cfg), "fsmonitor") {
		t.Errorf("the old store's config came along:\n%s", cfg)
	}
	for _, p := range []string{"objects/info/alternates", "hooks/post-checkout"} {
		if _, err := os.Stat(filepath.Join(r.Dir(), p)); err == nil {
			t.Errorf("%s came along", p)
		}
	}
	if m := marks(mk); len(m) != 0 {
		t.Errorf("ran %v", m)
	}
	fsck(t, r)
}

// A .git/info/exclude of the model's making that is a FIFO or a link to
// /dev/zero neither blocks a snapshot nor fills the memory: it is read
// only when it is a regular file, and at most 1 MiB of it.
func TestSpecialExcludeFilesDoNotStallSnapshots(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"fifo", "symlink"} {
		t.Run(kind, func(t *testing.T) {
			ws := t.TempDir()
			write(t, ws, map[string]string{"a.txt": "a\n"})
			os.MkdirAll(filepath.Join(ws, ".git", "info"), 0o755)
			p := filepath.Join(ws, ".git", "info", "exclude")
			var err error
			if kind == "fifo" {
				err = unix.Mkfifo(p, 0o644)
			} else {
				err = os.Symlink("/dev/zero", p)
			}
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := open(t, ws).Take(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
