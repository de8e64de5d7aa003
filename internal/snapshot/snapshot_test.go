package snapshot

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// write creates files (path → content) under root.
func write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree reads every file under root (except .git and .openseek) as
// path → content.
func tree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == ".git" || rel == ".openseek" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// gitDigest fingerprints everything under a user's .git directory (each
// file's path, mode and content), so that any change to its index, refs,
// objects or config shows.
func gitDigest(t testing.TB, dotgit string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dotgit, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dotgit, p)
		if d.IsDir() {
			lines = append(lines, rel+"/ "+info.Mode().String())
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s %s %x %d", rel, info.Mode(), sha256.Sum256(b), info.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// userGit runs the user's git in dir with a clean identity.
func userGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func open(t testing.TB, ws string) *Repo {
	t.Helper()
	r, err := Open(Options{Workspace: ws, Dir: filepath.Join(t.TempDir(), DirName)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRestorePutsFilesBackAndLeavesIgnoredOnesAlone(t *testing.T) {
	t.Parallel()
	for _, userRepo := range []bool{false, true} {
		t.Run(fmt.Sprintf("user_repo=%v", userRepo), func(t *testing.T) {
			ctx := context.Background()
			ws := t.TempDir()
			write(t, ws, map[string]string{
				"main.go":         "package main\n",
				"keep/notes.txt":  "notes\n",
				"gone/old.txt":    "old\n",
				".gitignore":      "*.log\nbuild/\n",
				"debug.log":       "ignored before\n",
				".openseek/x.txt": "agent state\n",
			})
			var before string
			if userRepo {
				userGit(t, ws, "init", "-q")
				write(t, ws, map[string]string{".git/info/exclude": "secret.txt\n"})
				userGit(t, ws, "add", "main.go", ".gitignore")
				userGit(t, ws, "commit", "-q", "-m", "user commit")
				write(t, ws, map[string]string{"secret.txt": "excluded by info/exclude\n"})
				before = gitDigest(t, filepath.Join(ws, ".git"))
			}
			r := open(t, ws)
			id, err := r.Take(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := tree(t, ws)

			// What a turn does: edit, create, delete, and touch ignored files.
			write(t, ws, map[string]string{
				"main.go":          "package main\n\nfunc main() {}\n",
				"new/dir/file.go":  "package dir\n",
				"debug.log":        "ignored after\n",
				"build/out.bin":    "artefact\n",
				".openseek/y.txt":  "more agent state\n",
				"keep/notes.txt":   "notes\nmore\n",
				"secret.txt":       "still excluded\n",
				"unrelated/ok.txt": "created\n",
			})
			if err := os.RemoveAll(filepath.Join(ws, "gone")); err != nil {
				t.Fatal(err)
			}
			again, err := r.Take(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if again == id {
				t.Fatal("a changed tree gave the same snapshot id")
			}

			res, err := r.Restore(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got := tree(t, ws)
			// Ignored files keep their current content; everything else is
			// as it was.
			want["debug.log"] = "ignored after\n"
			want["build/out.bin"] = "artefact\n"
			if userRepo {
				want["secret.txt"] = "still excluded\n"
			}
			if !equal(got, want) {
				t.Errorf("after restore:\n got %v\nwant %v", got, want)
			}
			if _, err := os.Stat(filepath.Join(ws, "new")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the directory of a removed file is still there: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, ".openseek", "y.txt")); string(b) != "more agent state\n" {
				t.Error(".openseek was touched by the restore")
			}
			actions := map[string]string{}
			for _, c := range res.Changes {
				actions[c.Path] = c.Action
			}
			wantActions := map[string]string{
				"main.go": "modified", "keep/notes.txt": "modified", "gone/old.txt": "restored",
				"new/dir/file.go": "removed", "unrelated/ok.txt": "removed",
			}
			if !userRepo {
				wantActions["secret.txt"] = "removed" // excluded only by the user's .git/info/exclude
			}
			if !equal(actions, wantActions) {
				t.Errorf("changes %v, want %v", actions, wantActions)
			}
			if res.Saved != again {
				t.Errorf("saved %s, want the unchanged current snapshot %s", res.Saved, again)
			}
			// The restore is undoable: restoring the saved state brings
			// the turn's files back.
			if _, err := r.Restore(ctx, res.Saved); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "new", "dir", "file.go")); string(b) != "package dir\n" {
				t.Errorf("undo did not bring back a created file: %q", b)
			}
			if userRepo {
				if after := gitDigest(t, filepath.Join(ws, ".git")); after != before {
					t.Errorf("the user's .git changed:\nbefore\n%s\nafter\n%s", before, after)
				}
				if st := userGit(t, ws, "status", "--porcelain"); !strings.Contains(st, "?? new/") {
					t.Errorf("the user's repository does not see the workspace as it is: %q", st)
				}
			}
		})
	}
}

func TestTakeIsStableWhenNothingChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a"})
	r := open(t, ws)
	a, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("two snapshots of an unchanged tree: %s, %s", a, b)
	}
}

// TestStaleLocksDoNotStopSnapshots: a turn cancelled during its snapshot
// kills git add, which leaves index.lock behind (and a killed process may
// leave the branch's lock); the next snapshot and restore still work.
func TestStaleLocksDoNotStopSnapshots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a"})
	r := open(t, ws)
	first, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.lock", "refs/heads/snapshots.lock"} {
		write(t, r.Dir(), map[string]string{name: ""})
	}
	write(t, ws, map[string]string{"a.txt": "changed"})
	second, err := r.Take(ctx)
	if err != nil {
		t.Fatalf("snapshot after a killed one: %v", err)
	}
	if second == first {
		t.Fatal("the changed workspace got the first snapshot's id")
	}
	write(t, r.Dir(), map[string]string{"index.lock": ""})
	if _, err := r.Restore(ctx, first); err != nil {
		t.Fatalf("restore after a killed snapshot: %v", err)
	}
	if got := tree(t, ws)["a.txt"]; got != "a" {
		t.Errorf("restored a.txt = %q, want %q", got, "a")
	}
}

func TestRestoreRefusesUnknownSnapshots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a"})
	r := open(t, ws)
	for _, id := range []string{"0123456789abcdef0123456789abcdef01234567", "not-hex; rm -rf /", "--help"} {
		if _, err := r.Restore(ctx, id); !errors.Is(err, ErrUnknownSnapshot) {
			t.Errorf("restore %q before any snapshot: %v", id, err)
		}
	}
	if _, err := r.Take(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Restore(ctx, "0123456789abcdef0123456789abcdef01234567"); !errors.Is(err, ErrUnknownSnapshot) {
		t.Errorf("restore of a missing commit: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "a" {
		t.Error("a refused restore changed the files")
	}
}

func TestCallerGitEnvironmentDoesNotLeakIn(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a"})
	userGit(t, ws, "init", "-q")
	before := gitDigest(t, filepath.Join(ws, ".git"))
	// A caller running inside a git hook has these set; they must not
	// redirect the snapshot into the user's repository.
	t.Setenv("GIT_DIR", filepath.Join(ws, ".git"))
	t.Setenv("GIT_INDEX_FILE", filepath.Join(ws, ".git", "index"))
	r := open(t, ws)
	if _, err := r.Take(ctx); err != nil {
		t.Fatal(err)
	}
	if after := gitDigest(t, filepath.Join(ws, ".git")); after != before {
		t.Errorf("the user's .git changed:\n%s\n---\n%s", before, after)
	}
}

// TestTenThousandFiles measures a snapshot of a 10,000-file tree: the
// first (every file hashed), a repeat after one edit (the stat cache at
// work) and the side repository's size. The figures are logged, not
// asserted (shared machines make timings flaky); what is asserted is
// that a restore after edits in that tree is exact.
func TestTenThousandFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	files := map[string]string{}
	for i := range 10000 {
		files[fmt.Sprintf("pkg%03d/file%04d.go", i/100, i)] = fmt.Sprintf("package pkg%03d\n\n// File %d.\nvar V%d = %d\n", i/100, i, i, i)
	}
	write(t, ws, files)
	r := open(t, ws)
	start := time.Now()
	id, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := time.Since(start)
	write(t, ws, map[string]string{"pkg000/file0000.go": "package pkg000\n// edited\n", "pkg050/new.go": "package pkg050\n"})
	if err := os.Remove(filepath.Join(ws, "pkg099", "file9999.go")); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if _, err := r.Take(ctx); err != nil {
		t.Fatal(err)
	}
	repeat := time.Since(start)
	start = time.Now()
	res, err := r.Restore(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	restore := time.Since(start)
	if len(res.Changes) != 3 {
		t.Errorf("restore changed %v, want 3 files", res.Changes)
	}
	if got := tree(t, ws); !equal(got, files) {
		t.Errorf("after restore the tree differs (%d files, want %d)", len(got), len(files))
	}
	t.Logf("10,000 files: first snapshot %v, repeat after 3 changes %v, restore %v, side repository %s",
		first.Round(time.Millisecond), repeat.Round(time.Millisecond), restore.Round(time.Millisecond), human(du(t, r.Dir())))
}

func du(t testing.TB, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

func human(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// Git repositories nested in the workspace (one without a commit, one
// with) are left out of snapshots and never touched by a restore.
func TestNestedRepositoriesAreLeftAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a", "empty/x.txt": "x", "full/y.txt": "y"})
	userGit(t, filepath.Join(ws, "empty"), "init", "-q")
	userGit(t, filepath.Join(ws, "full"), "init", "-q")
	userGit(t, filepath.Join(ws, "full"), "add", ".")
	userGit(t, filepath.Join(ws, "full"), "commit", "-q", "-m", "c")
	r := open(t, ws)
	id, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, map[string]string{"a.txt": "changed", "empty/x.txt": "x2", "full/y.txt": "y2", "later/z.txt": "z"})
	userGit(t, filepath.Join(ws, "later"), "init", "-q")
	if _, err := r.Take(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := r.Restore(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, ws)
	for p, want := range map[string]string{"a.txt": "a", "empty/x.txt": "x2", "full/y.txt": "y2", "later/z.txt": "z"} {
		if got[p] != want {
			t.Errorf("%s = %q, want %q", p, got[p], want)
		}
	}
	if len(res.Changes) != 1 || res.Changes[0].Path != "a.txt" {
		t.Errorf("changes %+v", res.Changes)
	}
}

// BenchmarkTake10k measures a snapshot of an unchanged 10,000-file tree
// after the first (the per-turn cost once the stat cache is warm).
func BenchmarkTake10k(b *testing.B) {
	files := map[string]string{}
	for i := range 10000 {
		files[fmt.Sprintf("d%02d/f%04d.txt", i/200, i)] = fmt.Sprint(i)
	}
	benchTake(b, files, "d00/f0000.txt")
}

// benchTake takes a first snapshot of files, then times one snapshot per
// change of the file edited.
func benchTake(b *testing.B, files map[string]string, edited string) {
	ctx := context.Background()
	ws := b.TempDir()
	write(b, ws, files)
	r := open(b, ws)
	if _, err := r.Take(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		write(b, ws, map[string]string{edited: fmt.Sprint("package d\n// edit ", i)})
		if _, err := r.Take(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// The side repository's settings are in effect, and each snapshot with
// changes is a commit whose parent is the previous one.
func TestRepositorySettingsAndChain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a"})
	r := open(t, ws)
	first, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"core.autocrlf": "false", "core.untrackedCache": "true", "core.quotePath": "false",
		"core.logAllRefUpdates": "false", "core.bigFileThreshold": "1", "gc.autoDetach": "false", "commit.gpgSign": "false",
	} {
		if got, err := r.git(ctx, "config", "--get", key); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", key, got, err, want)
		}
	}
	write(t, ws, map[string]string{"a.txt": "b"})
	second, err := r.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if parent, err := r.git(ctx, "rev-parse", second+"^"); err != nil || parent != first || second == first {
		t.Errorf("second snapshot %s has parent %s (%v), want %s", second, parent, err, first)
	}
}

// needsGC follows git gc --auto's thresholds: loose objects estimated
// from objects/17, and the number of packs.
func TestNeedsGC(t *testing.T) {
	t.Parallel()
	r := &Repo{gitDir: t.TempDir()}
	fill := func(dir string, n int, name func(int) string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := os.WriteFile(filepath.Join(dir, name(i)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if r.needsGC() {
		t.Error("an empty repository needs gc")
	}
	loose := func(i int) string { return fmt.Sprintf("%038x", i) }
	fill(filepath.Join(r.gitDir, "objects", "17"), (gcAutoLoose+255)/256, loose)
	if r.needsGC() {
		t.Error("gc at the loose-object threshold, want only past it")
	}
	fill(filepath.Join(r.gitDir, "objects", "17"), (gcAutoLoose+255)/256+1, loose)
	if !r.needsGC() {
		t.Error("no gc past the loose-object threshold")
	}
	r = &Repo{gitDir: t.TempDir()}
	pack := func(i int) string { return fmt.Sprintf("pack-%040x.pack", i) }
	fill(filepath.Join(r.gitDir, "objects", "pack"), gcAutoPacks, pack)
	if r.needsGC() {
		t.Error("gc at the pack limit, want only past it")
	}
	fill(filepath.Join(r.gitDir, "objects", "pack"), gcAutoPacks+1, pack)
	if !r.needsGC() {
		t.Error("no gc past the pack limit")
	}
}

// BenchmarkTakeSmall measures the per-turn snapshot of a small workspace
// (20 files) with one changed file: git add, git write-tree and the
// commit and ref written in Go.
func BenchmarkTakeSmall(b *testing.B) {
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("d%d/f%02d.go", i%3, i)] = fmt.Sprint("package d\n// ", i)
	}
	benchTake(b, files, "d0/f00.go")
}

// A snapshot cancelled while its repository was being created (a turn
// interrupted at its start) leaves a directory git cannot read; the next
// snapshot starts the repository anew instead of failing every turn with
// "not a git repository".
func TestAnInitCutShortIsStartedAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a"})
	r := open(t, ws)
	// What git init leaves when killed early: HEAD, nothing else.
	write(t, r.Dir(), map[string]string{"openseek.lock": "", "HEAD": "ref: refs/heads/master\n"})
	id, err := r.Take(ctx)
	if err != nil {
		t.Fatalf("snapshot after a cut-off init: %v", err)
	}
	write(t, ws, map[string]string{"a.txt": "changed"})
	if _, err := r.Restore(ctx, id); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if got := tree(t, ws)["a.txt"]; got != "a" {
		t.Errorf("restored a.txt = %q, want a", got)
	}
	// A cancelled init: the context ends while git init runs.
	r2 := open(t, ws)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r2.Take(cctx); err == nil {
		t.Fatal("a snapshot with a cancelled context succeeded")
	}
	if _, err := r2.Take(ctx); err != nil {
		t.Fatalf("snapshot after a cancelled one: %v", err)
	}
}
