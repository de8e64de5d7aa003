// Package snapshot keeps copies of a workspace's files in a side git
// repository, so that the changes a turn made can be undone (openseek
// rewind). It drives the git binary with its own GIT_DIR, index and work
// tree, through hostgit: no environment or configuration of the user's
// git leaks in, and nothing in the workspace makes git run a program.
//
// Invariants:
//   - The user's repository (.git: index, refs, objects, config) is never
//     read for writing nor written: the side repository lives outside the
//     workspace (Dir: ~/.openseek/snapshots/<hash of the workspace path>)
//     and the workspace need not be a git repository at all.
//   - Nothing the workspace holds is code to git: the side repository's
//     config is OpenSeek's own and defines no driver, and its
//     info/attributes (which outranks .gitattributes) switches off every
//     attribute that converts content (filter, text, eol, ident,
//     working-tree-encoding), so a snapshot stores the files' bytes and a
//     restore writes them back unchanged.
//   - What git would ignore is not snapshotted and never touched by a
//     restore: the workspace's .gitignore files, the user's
//     .git/info/exclude and global excludes file are honoured, and
//     .openseek itself (sessions) is always excluded.
//   - Each snapshot is a commit on one branch of the side repository
//     (parent: the previous snapshot), so every snapshot stays reachable.
//     Repeated snapshots are cheap: git's index stat cache hashes only the
//     files that changed, and only git add and git write-tree run; the
//     commit object, the branch and openseek-last (the last snapshot) are
//     written in Go in git's own formats (objects.go).
//   - A restore first snapshots the current state, so it can be undone;
//     git writes no file beneath a symbolic link (it replaces the link).
//   - One snapshot or restore at a time per side repository (a file lock).
//   - A store of an earlier version (Options.Legacy, in the workspace) is
//     moved into the new one on first use, so the snapshot ids that old
//     session logs name stay restorable.
package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/openseek/openseek/internal/hostgit"
)

// branch is the side repository's ref holding the chain of snapshots.
const branch = "refs/heads/snapshots"

// DirName is the directory of the side repositories under ~/.openseek
// (and of an earlier version's, under a session root).
const DirName = "snapshots"

// Dir is the side repository of workspace (an absolute, clean path) for
// the user whose home is home: ~/.openseek/snapshots/<the first 16 hex
// digits of the SHA-256 of the workspace path>. It lies outside the
// workspace, so that nothing a model writes there reaches it, and sandboxed
// commands cannot write it (~/.openseek is read-only to them).
func Dir(home, workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(home, ".openseek", DirName, hex.EncodeToString(sum[:8]))
}

// Options say where a side repository is and what it leaves out.
type Options struct {
	// Workspace is the directory snapshotted.
	Workspace string
	// Dir is the side repository's git directory (see Dir).
	Dir string
	// Exclude adds gitignore patterns (relative to the workspace root)
	// that are never snapshotted, beyond "/.openseek/" and Dir itself
	// when it lies inside the workspace.
	Exclude []string
	// Legacy is where an earlier version kept this workspace's side
	// repository (<session root>/snapshots). On first use, when Dir
	// holds no repository yet, its snapshots are moved into Dir.
	Legacy string
}

// Repo is the side repository of one workspace.
type Repo struct {
	gitDir    string
	workspace string
	exclude   []string
	legacy    string
}

// Open returns the side repository of a workspace. Nothing is created
// until the first snapshot.
func Open(o Options) (*Repo, error) {
	ws, err := filepath.Abs(o.Workspace)
	if err != nil {
		return nil, err
	}
	gd, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(ws)
	if err != nil {
		return nil, fmt.Errorf("snapshot workspace: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("snapshot workspace %s is not a directory", ws)
	}
	r := &Repo{gitDir: gd, workspace: ws, exclude: append([]string{"/.openseek/"}, o.Exclude...)}
	if rel, ok := inside(ws, gd); ok {
		r.exclude = append(r.exclude, "/"+filepath.ToSlash(rel)+"/")
	}
	if o.Legacy != "" {
		if r.legacy, err = filepath.Abs(o.Legacy); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// inside reports whether path lies strictly inside root, and its relative
// path from root.
func inside(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// Dir is the side repository's git directory.
func (r *Repo) Dir() string { return r.gitDir }

// Take snapshots the workspace and returns the snapshot's id (a commit
// of the side repository). When nothing changed since the last snapshot
// the last snapshot's id is returned.
func (r *Repo) Take(ctx context.Context) (string, error) {
	unlock, err := r.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	return r.take(ctx)
}

// Diff is the unified diff of the files from snapshot from to snapshot to
// (binary files, and files of 8 MiB or more, are named, not shown: the
// repository's bigFileThreshold, which makes every file a blob for bulk
// check-in, would otherwise have git call them all binary).
func (r *Repo) Diff(ctx context.Context, from, to string) (string, error) {
	out, _, err := r.run(ctx, false, "-c", "core.bigFileThreshold=8m", "diff", "--no-color", "--no-ext-diff", "--no-renames", from, to, "--")
	return out, err
}

func (r *Repo) take(ctx context.Context) (string, error) {
	if err := r.init(ctx); err != nil {
		return "", err
	}
	if err := r.writeExcludes(); err != nil {
		return "", err
	}
	// Every git process costs a few milliseconds of CPU before the turn's
	// first model request: the last snapshot is read from files (else
	// looked up by git while the files are added), the commit and the
	// branch are written in Go, and gc runs only when git's own
	// thresholds are passed.
	f := r.format()
	var parent snap
	var prev chan snap
	if f.files {
		id, ok, err := r.readRef(branch)
		if l, lok := r.readLast(); err == nil && ok && lok && l.commit == id {
			parent = l
		} else if err != nil || ok {
			prev = make(chan snap, 1)
		}
	} else {
		prev = make(chan snap, 1)
	}
	if prev != nil {
		go func() {
			var l snap
			// Both or neither: before the first snapshot the branch is absent.
			if out, err := r.git(ctx, "rev-parse", branch, branch+"^{tree}"); err == nil {
				if c, t, ok := strings.Cut(out, "\n"); ok && isHex(c) && isHex(t) {
					l = snap{c, t}
				}
			}
			prev <- l
		}()
	}
	err := r.add(ctx)
	if prev != nil {
		parent = <-prev
	}
	if err != nil {
		return "", err
	}
	tree, err := r.git(ctx, "write-tree")
	if err != nil {
		return "", err
	}
	if parent.tree == tree {
		if prev != nil && f.files {
			// Spare the next snapshot the lookup.
			_ = r.writeLast(parent)
		}
		return parent.commit, nil
	}
	commit, err := r.commit(ctx, f, tree, parent.commit)
	if err != nil {
		return "", err
	}
	if r.needsGC() {
		// Pack loose objects and merge packs, in the foreground so that
		// no process outlives the call.
		if _, err := r.git(ctx, "gc", "--auto", "--quiet"); err != nil {
			return "", err
		}
	}
	return commit, nil
}

// commit records tree as a snapshot whose parent is parent (none when
// empty) and moves the branch to it. In a repository of git's usual
// formats the commit object and the ref are written in Go (see
// objects.go), else by git commit-tree and git update-ref.
func (r *Repo) commit(ctx context.Context, f format, tree, parent string) (string, error) {
	var commit string
	var err error
	if f.files && f.newHash != nil {
		commit, err = r.writeObject(f.newHash, "commit", commitText(tree, parent, time.Now()))
		if err != nil {
			return "", fmt.Errorf("write the snapshot commit (snapshot repository %s): %w", r.gitDir, err)
		}
	} else {
		args := []string{"commit-tree", "--no-gpg-sign", "-m", "openseek snapshot"}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		if commit, err = r.git(ctx, append(args, tree)...); err != nil {
			return "", err
		}
	}
	// A reflog someone turned on is appended to by git only.
	if _, serr := os.Stat(filepath.Join(r.gitDir, "logs", filepath.FromSlash(branch))); f.files && serr != nil {
		err = r.writeRef(branch, commit)
	} else {
		_, err = r.git(ctx, "update-ref", branch, commit)
	}
	if err != nil {
		return "", err
	}
	if f.files {
		if err := r.writeLast(snap{commit, tree}); err != nil {
			return "", fmt.Errorf("record the last snapshot (snapshot repository %s): %w", r.gitDir, err)
		}
	}
	return commit, nil
}

// Git's defaults for gc --auto (gc.auto, gc.autoPackLimit), which the
// side repository does not change.
const (
	gcAutoLoose = 6700
	gcAutoPacks = 50
)

// needsGC applies git gc --auto's own test without starting git: more
// loose objects than gc.auto, estimated from the objects/17 fan-out
// directory as git does, or more packs than gc.autoPackLimit (each
// snapshot's bulk check-in writes a pack). gc --auto still decides.
func (r *Repo) needsGC() bool {
	loose, _ := os.ReadDir(filepath.Join(r.gitDir, "objects", "17"))
	n := 0
	for _, e := range loose {
		if l := len(e.Name()); (l == 38 || l == 62) && isHex(e.Name()) { // SHA-1 or SHA-256
			n++
		}
	}
	if n > (gcAutoLoose+255)/256 {
		return true
	}
	packs, _ := filepath.Glob(filepath.Join(r.gitDir, "objects", "pack", "*.pack"))
	return len(packs) > gcAutoPacks
}

// add stages the whole workspace. A git repository nested in the
// workspace is not snapshotted (git would record only its commit, or
// fail when it has none): it is excluded from then on and dropped from
// the index.
func (r *Repo) add(ctx context.Context) error {
	for range 8 {
		_, stderr, err := r.run(ctx, true, "-c", "advice.addEmbeddedRepo=false", "add", "--all", "--", ".")
		nested := nestedRepos(stderr)
		if len(nested) == 0 {
			return err
		}
		if err := r.excludeNested(nested); err != nil {
			return err
		}
		if _, _, err := r.run(ctx, true, append([]string{"rm", "--cached", "-r", "-f", "-q", "--ignore-unmatch", "--"}, nested...)...); err != nil {
			return err
		}
		if err == nil {
			return nil
		}
	}
	return fmt.Errorf("git add (snapshot repository %s): too many nested git repositories in %s; set OPENSEEK_SNAPSHOTS=off", r.gitDir, r.workspace)
}

// nestedRepos reads the nested repositories git add complained about.
func nestedRepos(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if p, ok := strings.CutPrefix(line, "warning: adding embedded git repository: "); ok {
			out = append(out, strings.TrimSuffix(p, "/"))
		} else if rest, ok := strings.CutPrefix(line, "error: '"); ok {
			if p, ok := strings.CutSuffix(rest, "' does not have a commit checked out"); ok {
				out = append(out, strings.TrimSuffix(p, "/"))
			}
		}
	}
	return out
}

// nestedFile lists the workspace's nested repositories, one a line.
const nestedFile = "openseek-nested"

func (r *Repo) excludeNested(paths []string) error {
	f, err := os.OpenFile(filepath.Join(r.gitDir, nestedFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintf(f, "/%s/\n", p)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return r.writeExcludes()
}

// Change is one file a restore changed.
type Change struct {
	Path string `json:"path"`
	// Action is "modified" (content or mode put back), "removed" (created
	// since the snapshot) or "restored" (deleted since the snapshot).
	Action string `json:"action"`
}

// Restored is what a restore did.
type Restored struct {
	// Saved is the snapshot of the files as they were just before the
	// restore: restoring it undoes the restore.
	Saved   string   `json:"saved"`
	Changes []Change `json:"changes"`
}

// ErrUnknownSnapshot is returned by Restore for an id the side
// repository does not hold.
var ErrUnknownSnapshot = errors.New("unknown snapshot")

// Restore puts the workspace's files back as they were in snapshot id:
// files changed since are put back, files created since are removed and
// files deleted since are restored. Ignored files are left alone. The
// current state is snapshotted first (Restored.Saved).
func (r *Repo) Restore(ctx context.Context, id string) (Restored, error) {
	if !isHex(id) {
		return Restored{}, fmt.Errorf("%w %q: a snapshot id is a hexadecimal commit id", ErrUnknownSnapshot, id)
	}
	if !isRepo(r.gitDir) && (r.legacy == "" || !isRepo(r.legacy)) {
		return Restored{}, fmt.Errorf("%w %s: there is no snapshot repository at %s (snapshots are kept per user and per workspace path: run as the user who ran the session, in the same directory)", ErrUnknownSnapshot, id, r.gitDir)
	}
	unlock, err := r.lock()
	if err != nil {
		return Restored{}, err
	}
	defer unlock()
	if err := r.init(ctx); err != nil {
		return Restored{}, err
	}
	target, err := r.git(ctx, "rev-parse", "--quiet", "--verify", id+"^{commit}")
	if err != nil {
		return Restored{}, fmt.Errorf("%w %s: the snapshot repository %s does not hold it", ErrUnknownSnapshot, id, r.gitDir)
	}
	saved, err := r.take(ctx)
	if err != nil {
		return Restored{}, fmt.Errorf("snapshot the current files before restoring: %w", err)
	}
	out := Restored{Saved: saved, Changes: []Change{}}
	diff, err := r.git(ctx, "diff-tree", "-r", "-z", "--no-renames", "--name-status", saved, target)
	if err != nil {
		return Restored{}, err
	}
	fields := strings.Split(strings.TrimSuffix(diff, "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		action := "modified"
		switch fields[i] {
		case "A":
			action = "restored"
		case "D":
			action = "removed"
		}
		out.Changes = append(out.Changes, Change{Path: fields[i+1], Action: action})
	}
	// A two-tree merge from the current snapshot (the index matches the
	// files) to the target touches only the files that differ.
	if _, err := r.git(ctx, "read-tree", "-m", "-u", saved, target); err != nil {
		return Restored{Saved: saved}, fmt.Errorf("restore snapshot %s: %w; the files as they were before are kept as snapshot %s (openseek rewind --snapshot %s puts them back)", id, err, saved, saved)
	}
	return out, nil
}

func isHex(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// init creates the side repository on first use, moving an earlier
// version's store into it, and sets the options that make it fast and
// independent of the user's configuration. They are appended to the new
// repository's config file in one write rather than set by one git
// config process each.
func (r *Repo) init(ctx context.Context) error {
	if ready(r.gitDir) {
		return nil
	}
	// An init cut off earlier (a turn cancelled while git init ran, a
	// killed process) left a directory git may not read: start it anew.
	// The caller holds openseek.lock, so no other process is in it.
	if err := clearBut(r.gitDir, "openseek.lock"); err != nil {
		return fmt.Errorf("clear the unfinished snapshot repository %s: %w", r.gitDir, err)
	}
	if _, _, err := r.run(ctx, false, "init", "--quiet", "--template="); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(r.gitDir, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("configure the snapshot repository %s: %w", r.gitDir, err)
	}
	_, err = f.WriteString(repoConfig)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("configure the snapshot repository %s: %w", r.gitDir, err)
	}
	if r.legacy != "" && isRepo(r.legacy) {
		if err := r.adopt(r.legacy); err != nil {
			return fmt.Errorf("move the snapshots of %s to %s: %w", r.legacy, r.gitDir, err)
		}
	}
	return nil
}

// ready reports whether dir holds a side repository whose init finished:
// git's HEAD, objects and refs, and the options init appends last to its
// config.
func ready(dir string) bool {
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "config"))
	return err == nil && bytes.Contains(b, []byte(repoConfig))
}

// clearBut removes everything in dir but the entry named keep.
func clearBut(dir, keep string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != keep {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// isRepo reports whether dir holds a git directory (its HEAD).
func isRepo(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, "HEAD"))
	return err == nil
}

// repoConfig is appended to the side repository's config (a later
// section of the same name adds to the earlier one).
const repoConfig = `[core]
	autocrlf = false
	untrackedCache = true
	quotePath = false
	logAllRefUpdates = false
	# Every file goes through bulk check-in: one pack per snapshot instead
	# of one loose object file per file (a first snapshot of 10,000 files:
	# about 1 MiB and a second instead of 40 MiB and several seconds).
	bigFileThreshold = 1
[gc]
	autoDetach = false
[commit]
	gpgSign = false
`

// attributes is the side repository's info/attributes, which outranks
// every .gitattributes: no attribute of the workspace's selects a filter
// driver or converts line endings, encodings or $Id$ on the way in or
// out, so a snapshot holds the files' bytes and a restore writes them.
const attributes = "# written by openseek: snapshots store the files' bytes\n* -text !eol -filter -ident !working-tree-encoding\n"

// writeExcludes writes the side repository's info/exclude (.openseek,
// the extra patterns, and the user's own .git/info/exclude, read, never
// written), refreshed at each snapshot, and its info/attributes.
func (r *Repo) writeExcludes() error {
	var b bytes.Buffer
	b.WriteString("# written by openseek: the snapshot excludes\n")
	for _, p := range r.exclude {
		b.WriteString(p + "\n")
	}
	if nested, err := os.ReadFile(filepath.Join(r.gitDir, nestedFile)); err == nil {
		b.WriteString("# nested git repositories\n")
		b.Write(nested)
	}
	if user, err := readRegular(filepath.Join(r.workspace, ".git", "info", "exclude"), maxExclude); err == nil {
		b.WriteString("# from the workspace's .git/info/exclude\n")
		b.Write(user)
		b.WriteString("\n")
	}
	if err := writeIfChanged(filepath.Join(r.gitDir, "info", "exclude"), b.Bytes()); err != nil {
		return err
	}
	return writeIfChanged(filepath.Join(r.gitDir, "info", "attributes"), []byte(attributes))
}

// maxExclude caps what is read of the workspace's .git/info/exclude.
const maxExclude = 1 << 20

// readRegular reads at most limit bytes of the regular file at path,
// not following a symlink there: a file in the workspace may be a FIFO
// (which would block the snapshot) or a link to /dev/zero.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// writeIfChanged writes data to path unless it holds data already.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// lock serialises snapshots and restores of one side repository across
// processes (git's own index.lock would fail the second one instead).
func (r *Repo) lock() (func(), error) {
	if err := os.MkdirAll(r.gitDir, 0o755); err != nil {
		return nil, fmt.Errorf("create the snapshot repository %s: %w", r.gitDir, err)
	}
	path := filepath.Join(r.gitDir, "openseek.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	r.clearStaleLocks()
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}

// clearStaleLocks removes the lock files a git process (or writeRef) left
// behind when it was killed mid-snapshot — cancelling a turn kills its
// git add — which would fail every later snapshot. Only a holder of
// openseek.lock takes snapshots and restores, so with it held no lock
// in the side repository can be live.
func (r *Repo) clearStaleLocks() {
	for _, name := range []string{"index.lock", filepath.FromSlash(branch) + ".lock"} {
		_ = os.Remove(filepath.Join(r.gitDir, name))
	}
}

// git runs git on the side repository with the workspace as work tree
// and returns its trimmed standard output.
func (r *Repo) git(ctx context.Context, args ...string) (string, error) {
	out, _, err := r.run(ctx, true, args...)
	return out, err
}

// run runs git (hardened: see hostgit) and returns its trimmed standard
// output and its standard error; a failure's error carries git's message.
func (r *Repo) run(ctx context.Context, worktree bool, args ...string) (string, string, error) {
	g := hostgit.Git{Dir: r.workspace, Env: r.env(worktree), OwnConfig: true}
	stdout, stderr, err := g.Run(ctx, args...)
	var ge *hostgit.Error
	switch {
	case err == nil:
		return strings.TrimSpace(stdout), stderr, nil
	case errors.Is(err, hostgit.ErrNotInstalled):
		return "", "", errors.New("snapshots need the git binary: install git (apt-get install git) or set OPENSEEK_SNAPSHOTS=off")
	case errors.As(err, &ge):
		return "", stderr, fmt.Errorf("git %s (snapshot repository %s): %s", hostgit.Verb(args), r.gitDir, ge.Message())
	}
	return "", stderr, fmt.Errorf("snapshot repository %s: %w", r.gitDir, err)
}

// env is what the side repository's git processes get beyond hostgit's
// environment: the side repository itself and the snapshots' author.
func (r *Repo) env(worktree bool) []string {
	env := make([]string, 0, 9)
	env = append(env,
		"GIT_DIR="+r.gitDir,
		"GIT_AUTHOR_NAME=openseek", "GIT_AUTHOR_EMAIL=openseek@localhost",
		"GIT_COMMITTER_NAME=openseek", "GIT_COMMITTER_EMAIL=openseek@localhost",
	)
	if os.Getenv("GLIBC_TUNABLES") == "" {
		// glibc's default trimming makes git add return memory to the
		// kernel after every file: on large trees most of its time went
		// to brk calls.
		env = append(env, "GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=67108864")
	}
	if worktree {
		env = append(env, "GIT_WORK_TREE="+r.workspace, "GIT_INDEX_FILE="+filepath.Join(r.gitDir, "index"))
	}
	return env
}
