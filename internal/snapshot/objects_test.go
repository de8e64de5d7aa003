package snapshot

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/hostgit"
)

// gitWrapper puts a git first on PATH that logs each invocation's
// arguments (one line each) and runs the real git with env (VAR=value
// words, possibly empty) set: GIT_DEFAULT_HASH=sha256 stands for a git
// whose default object format is sha256 (as a user's
// init.defaultObjectFormat, or git 3, makes it), which the side
// repository's own environment does not clear. It returns the log.
func gitWrapper(t *testing.T, env string) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("these tests need the git binary: %v", err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "git.log")
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\n%s exec %q \"$@\"\n", log, env, real)
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// invocations reads and clears a gitWrapper log.
func invocations(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	os.Remove(log)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// sideGit runs git on r's side repository with extra environment.
func sideGit(t *testing.T, r *Repo, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.workspace
	cmd.Env = hostgit.Environ(append(r.env(true), env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// fsck runs git fsck --full --strict on r's side repository and fails on
// anything it reports but the unborn HEAD (snapshots live on their own
// branch).
func fsck(t *testing.T, r *Repo) {
	t.Helper()
	out := sideGit(t, r, nil, "fsck", "--full", "--strict", "--no-dangling")
	out = strings.TrimSpace(strings.ReplaceAll(out, "notice: HEAD points to an unborn branch (master)", ""))
	if out != "" {
		t.Errorf("git fsck:\n%s", out)
	}
}

var objectFormats = []struct {
	name    string
	env     string
	newHash func() hash.Hash
	hexLen  int
}{
	{"sha1", "", sha1.New, 40},
	{"sha256", "GIT_DEFAULT_HASH=sha256", sha256.New, 64},
}

// take snapshots r and returns the snapshot and the tree it holds (the
// index's tree, which take committed).
func take(t *testing.T, r *Repo) snap {
	t.Helper()
	id, err := r.Take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap{id, sideGit(t, r, nil, "write-tree")}
}

// A chain of snapshots is read back by git as take returned it, passes
// git fsck --strict, and every commit object is the one git commit-tree
// writes for the same tree, parent, identity and date; the loose files
// are git's (zlib of "commit <len>\0<text>", mode 0444).
func TestGitReadsWhatTakeWrites(t *testing.T) {
	for _, of := range objectFormats {
		t.Run(of.name, func(t *testing.T) {
			gitWrapper(t, of.env)
			ws := t.TempDir()
			write(t, ws, map[string]string{"a.txt": "a", "d/b.txt": "b"})
			r := open(t, ws)
			var chain []snap
			for i, files := range []map[string]string{
				nil, {"a.txt": "a2"}, {"d/c.txt": "c"}, nil, {"d/b.txt": "b2", "e/f.txt": "f"},
			} {
				write(t, ws, files)
				s := take(t, r)
				if i > 0 && files == nil {
					if s != chain[len(chain)-1] {
						t.Fatalf("unchanged snapshot %v, want the last %v", s, chain[len(chain)-1])
					}
					continue
				}
				chain = append(chain, s)
			}
			if got := sideGit(t, r, nil, "rev-parse", "--show-object-format"); got != of.name {
				t.Fatalf("side repository's object format %s, want %s", got, of.name)
			}
			fsck(t, r)
			var want []string
			for i := len(chain) - 1; i >= 0; i-- {
				line := chain[i].commit + " " + chain[i].tree + " "
				if i > 0 {
					line += chain[i-1].commit
				}
				want = append(want, strings.TrimSpace(line))
			}
			got := strings.Split(sideGit(t, r, nil, "log", "--format=%H %T %P", branch), "\n")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("git log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for i, s := range chain {
				if len(s.commit) != of.hexLen {
					t.Errorf("snapshot id %s, want %d hex digits", s.commit, of.hexLen)
				}
				text := sideGit(t, r, nil, "cat-file", "commit", s.commit) + "\n"
				// git commit-tree with the same inputs and date.
				author := strings.SplitN(strings.SplitN(text, "\nauthor ", 2)[1], "\n", 2)[0]
				date := "@" + strings.TrimPrefix(author, ident+" ")
				args := []string{"commit-tree", "-m", "openseek snapshot"}
				if i > 0 {
					args = append(args, "-p", chain[i-1].commit)
				}
				theirs := sideGit(t, r, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, append(args, s.tree)...)
				if theirs != s.commit {
					t.Errorf("git commit-tree made %s for snapshot %s:\n%s", theirs, s.commit, text)
				}
				path := filepath.Join(r.gitDir, "objects", s.commit[:2], s.commit[2:])
				st, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != 0o444 {
					t.Errorf("%s mode %v, want 0444", path, st.Mode().Perm())
				}
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				zr, err := zlib.NewReader(f)
				if err != nil {
					t.Fatal(err)
				}
				raw, err := io.ReadAll(zr)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf("commit %d\x00%s", len(text), text); string(raw) != want {
					t.Errorf("loose object %s holds %q, want %q", path, raw, want)
				}
			}
			if ref, err := os.ReadFile(filepath.Join(r.gitDir, "refs", "heads", "snapshots")); err != nil || string(ref) != chain[len(chain)-1].commit+"\n" {
				t.Errorf("loose ref %q (%v), want %s", ref, err, chain[len(chain)-1].commit)
			}
		})
	}
}

// commitText matches git commit-tree byte for byte for dates in any
// time zone (git reads GIT_AUTHOR_DATE and GIT_COMMITTER_DATE), with and
// without a parent, in both object formats.
func TestCommitTextIsGitCommitTrees(t *testing.T) {
	for _, of := range objectFormats {
		t.Run(of.name, func(t *testing.T) {
			gitWrapper(t, of.env)
			ws := t.TempDir()
			write(t, ws, map[string]string{"a.txt": "a"})
			r := open(t, ws)
			first := take(t, r)
			for _, tc := range []struct {
				when   time.Time
				parent string
			}{
				{time.Unix(1700000000, 0).UTC(), ""},
				{time.Unix(1700000000, 0).UTC(), first.commit},
				{time.Unix(1234567890, 0).In(time.FixedZone("", -(3*3600 + 30*60))), first.commit},
				{time.Unix(1999999999, 0).In(time.FixedZone("", 5*3600+45*60)), ""},
				{time.Unix(86400, 0).In(time.FixedZone("", -12*3600)), first.commit},
				{time.Unix(1767225600, 0).In(time.FixedZone("", 14*3600)), first.commit},
			} {
				ours := commitText(first.tree, tc.parent, tc.when)
				h := of.newHash()
				fmt.Fprintf(h, "commit %d\x00%s", len(ours), ours)
				id := fmt.Sprintf("%x", h.Sum(nil))
				date := "@" + strings.SplitN(strings.SplitN(string(ours), "\nauthor "+ident+" ", 2)[1], "\n", 2)[0]
				args := []string{"commit-tree", "-m", "openseek snapshot"}
				if tc.parent != "" {
					args = append(args, "-p", tc.parent)
				}
				theirs := sideGit(t, r, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, append(args, first.tree)...)
				text := sideGit(t, r, nil, "cat-file", "commit", theirs) + "\n"
				if theirs != id || text != string(ours) {
					t.Errorf("date %s: git commit-tree wrote %s:\n%s\nours %s:\n%s", date, theirs, text, id, ours)
				}
			}
		})
	}
}

// The last snapshot is found when openseek-last is missing or stale,
// when someone moved the branch, and when the branch is packed (a loose
// ref then takes precedence over the packed one, as in git).
func TestLastSnapshotLookup(t *testing.T) {
	t.Parallel()
	parentOf := func(t *testing.T, r *Repo, id string) string {
		t.Helper()
		return sideGit(t, r, nil, "log", "-1", "--format=%P", id)
	}
	for _, tc := range []struct {
		name string
		// prepare damages the bookkeeping after snapshots s1 and s2 (the
		// branch at s2) and returns the snapshot the next one must
		// follow.
		prepare func(t *testing.T, r *Repo, s1, s2 snap) snap
	}{
		{"missing", func(t *testing.T, r *Repo, s1, s2 snap) snap {
			os.Remove(filepath.Join(r.gitDir, lastFile))
			return s2
		}},
		{"stale", func(t *testing.T, r *Repo, s1, s2 snap) snap {
			if err := r.writeLast(s1); err != nil {
				t.Fatal(err)
			}
			return s2
		}},
		{"garbage", func(t *testing.T, r *Repo, s1, s2 snap) snap {
			os.WriteFile(filepath.Join(r.gitDir, lastFile), []byte("not a snapshot"), 0o644)
			return s2
		}},
		{"branch moved", func(t *testing.T, r *Repo, s1, s2 snap) snap {
			sideGit(t, r, nil, "update-ref", branch, s1.commit)
			return s1
		}},
		{"packed", func(t *testing.T, r *Repo, s1, s2 snap) snap {
			sideGit(t, r, nil, "pack-refs", "--all")
			if _, err := os.Stat(filepath.Join(r.gitDir, "refs", "heads", "snapshots")); err == nil {
				t.Fatal("git pack-refs --all left the loose ref")
			}
			return s2
		}},
		{"packed and missing", func(t *testing.T, r *Repo, s1, s2 snap) snap {
			sideGit(t, r, nil, "pack-refs", "--all")
			os.Remove(filepath.Join(r.gitDir, lastFile))
			return s2
		}},
		{"packed and moved", func(t *testing.T, r *Repo, s1, s2 snap) snap {
			sideGit(t, r, nil, "update-ref", branch, s1.commit)
			sideGit(t, r, nil, "pack-refs", "--all")
			return s1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			write(t, ws, map[string]string{"a.txt": "1"})
			r := open(t, ws)
			s1 := take(t, r)
			write(t, ws, map[string]string{"a.txt": "2"})
			s2 := take(t, r)
			prev := tc.prepare(t, r, s1, s2)
			// Nothing changed since s2.
			again := take(t, r)
			if prev == s2 && again != s2 {
				t.Errorf("unchanged snapshot %v, want the last %v", again, s2)
			}
			if prev == s1 && (again.commit == s1.commit || parentOf(t, r, again.commit) != s1.commit) {
				t.Errorf("snapshot %v after the branch moved to %v: parent %s", again, s1, parentOf(t, r, again.commit))
			}
			if got, ok := r.readLast(); !ok || got != again {
				t.Errorf("openseek-last %v (%v), want %v", got, ok, again)
			}
			write(t, ws, map[string]string{"a.txt": "3"})
			s3 := take(t, r)
			if p := parentOf(t, r, s3.commit); p != again.commit {
				t.Errorf("snapshot %s has parent %s, want %s", s3.commit, p, again.commit)
			}
			if got := sideGit(t, r, nil, "rev-parse", branch); got != s3.commit {
				t.Errorf("git reads the branch as %s, want %s", got, s3.commit)
			}
			if id, ok, err := r.readRef(branch); err != nil || !ok || id != s3.commit {
				t.Errorf("readRef = %s %v %v, want %s", id, ok, err, s3.commit)
			}
			sideGit(t, r, nil, "pack-refs", "--all")
			if id, ok, err := r.readRef(branch); err != nil || !ok || id != s3.commit {
				t.Errorf("readRef of the packed branch = %s %v %v, want %s", id, ok, err, s3.commit)
			}
			fsck(t, r)
		})
	}
}

// A later snapshot starts git twice (add, write-tree) when files
// changed and no more when nothing changed; the first adds git init.
func TestSnapshotGitProcesses(t *testing.T) {
	for _, of := range objectFormats {
		t.Run(of.name, func(t *testing.T) {
			log := gitWrapper(t, of.env)
			ws := t.TempDir()
			write(t, ws, map[string]string{"a.txt": "a", "d/b.txt": "b"})
			r := open(t, ws)
			take(t, r)
			verbs := func() []string {
				var out []string
				for _, line := range invocations(t, log) {
					out = append(out, hostgit.Verb(strings.Fields(line)))
				}
				return out
			}
			verbs()
			for i := range 3 {
				write(t, ws, map[string]string{"a.txt": fmt.Sprint("edit ", i)})
				if _, err := r.Take(context.Background()); err != nil {
					t.Fatal(err)
				}
				if got := verbs(); !reflect.DeepEqual(got, []string{"add", "write-tree"}) {
					t.Errorf("snapshot with a changed file ran git %v, want [add write-tree]", got)
				}
				if _, err := r.Take(context.Background()); err != nil {
					t.Fatal(err)
				}
				if got := verbs(); len(got) > 2 {
					t.Errorf("unchanged snapshot ran git %v, want at most 2 processes", got)
				}
			}
		})
	}
}

// format reads the object format and refuses what it does not know.
func TestFormat(t *testing.T) {
	t.Parallel()
	sha1Hash, sha256Hash := fmt.Sprint(sha1.New().Size()), fmt.Sprint(sha256.New().Size())
	for _, tc := range []struct {
		config string
		hash   string // digest size, "" for none
		files  bool
	}{
		{"[core]\n\trepositoryformatversion = 0\n", sha1Hash, true},
		{"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n", sha256Hash, true},
		{"[extensions]\n\tobjectFormat = \"SHA1\" # comment\n", sha1Hash, true},
		{"[Extensions] objectformat = sha256\n", sha256Hash, true},
		{"[extensions]\n\tobjectformat = sha512\n", "", true},
		{"[extensions]\n\trefstorage = files\n\tobjectformat = sha256\n", sha256Hash, true},
		{"[extensions]\n\trefstorage = reftable\n", "", false},
		{"[extensions]\n\tobjectformat = sha256\n\tcompatobjectformat = sha1\n", "", false},
		{"[core]\n\tbare = false\n[remote \"x\"]\n\tobjectformat = sha256\n", sha1Hash, true},
	} {
		r := &Repo{gitDir: t.TempDir()}
		if err := os.WriteFile(filepath.Join(r.gitDir, "config"), []byte(tc.config+repoConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		f := r.format()
		got := ""
		if f.newHash != nil {
			got = fmt.Sprint(f.newHash().Size())
		}
		if got != tc.hash || f.files != tc.files {
			t.Errorf("config %q: hash size %q files %v, want %q %v", tc.config, got, f.files, tc.hash, tc.files)
		}
	}
}

// TestStoredZlib: our stored-block zlib stream inflates to its input (the
// reader checks the Adler-32 at the end) for every size one block holds.
func TestStoredZlib(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 300, 0xffff} {
		in := bytes.Repeat([]byte("commit 1\x00"), n/9+1)[:n]
		z, err := storedZlib(in[:n/2], in[n/2:])
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		zr, err := zlib.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		out, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(out, in) {
			t.Errorf("%d bytes: inflated %d bytes, err %v", n, len(out), err)
		}
	}
	if _, err := storedZlib(make([]byte, 0x10000)); err == nil {
		t.Error("a 64 KiB object was put in one stored block")
	}
}
