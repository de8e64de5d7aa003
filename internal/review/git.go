package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openseek/openseek/internal/hostgit"
)

// Changes is the diff under review.
type Changes struct {
	// Range says what is reviewed: "<base>...HEAD" or "uncommitted changes".
	Range string
	Stat  string // git diff --stat
	Diff  string // the unified diff, untracked files included for uncommitted changes
	// Root is the repository's top directory: the diff's paths are
	// relative to it.
	Root string
}

// ErrNotGit is returned when the workspace is not inside a git repository.
var ErrNotGit = errors.New("not a git repository")

// repo runs the user's git read-only in one directory, hardened
// (hostgit: nothing in the repository makes it run a program), with no
// optional locks (git never refreshes the index on disk) and no colour.
type repo struct{ dir string }

func (r repo) git(ctx context.Context, args ...string) (string, error) {
	out, code, err := r.run(ctx, args...)
	if code > 0 {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return out, err
}

// run returns git's output and exit status; err carries git's message
// for a non-zero status.
func (r repo) run(ctx context.Context, args ...string) (string, int, error) {
	g := hostgit.Git{Dir: r.dir, Env: []string{"GIT_OPTIONAL_LOCKS=0"}}
	stdout, _, err := g.Run(ctx, append([]string{"-c", "core.quotePath=false", "-c", "color.ui=false"}, args...)...)
	var ge *hostgit.Error
	switch {
	case err == nil:
		return stdout, 0, nil
	case errors.As(err, &ge):
		return stdout, ge.Code, errors.New(ge.Message())
	case errors.Is(err, hostgit.ErrNotInstalled):
		return "", -1, errors.New("review needs the git binary: install git")
	}
	return "", -1, err
}

// changes computes the diff to review: uncommitted changes (index and
// work tree against HEAD, plus untracked files), or base...HEAD where an
// empty base means the merge base with the default branch.
func changes(ctx context.Context, dir, base string, uncommitted bool) (Changes, error) {
	top, err := repo{dir: dir}.git(ctx, "rev-parse", "--show-toplevel")
	if err != nil || strings.TrimSpace(top) == "" {
		abs, _ := filepath.Abs(dir)
		return Changes{}, fmt.Errorf("%w: %s is not inside a git work tree; review compares git revisions (run it in a repository, or git init one)", ErrNotGit, abs)
	}
	r := repo{dir: strings.TrimSpace(top)}
	c, err := r.changes(ctx, base, uncommitted)
	c.Root = r.dir
	return c, err
}

func (r repo) changes(ctx context.Context, base string, uncommitted bool) (Changes, error) {
	_, headErr := r.git(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if uncommitted {
		from := "HEAD"
		if headErr != nil {
			// No commit yet: everything is new.
			empty, err := r.git(ctx, "hash-object", "-t", "tree", os.DevNull)
			if err != nil {
				return Changes{}, err
			}
			from = strings.TrimSpace(empty)
		}
		return r.diff(ctx, "uncommitted changes", from, true)
	}
	if headErr != nil {
		return Changes{}, errors.New("the repository has no commit yet, so there is no HEAD to compare: use --uncommitted")
	}
	if base == "" {
		var err error
		if base, err = r.defaultBranch(ctx); err != nil {
			return Changes{}, err
		}
	} else if strings.HasPrefix(base, "-") {
		return Changes{}, fmt.Errorf("--base %q is not a git revision", base)
	}
	if _, err := r.git(ctx, "rev-parse", "--verify", "--quiet", base+"^{commit}"); err != nil {
		return Changes{}, fmt.Errorf("--base %s: no such commit, branch or tag in this repository (git branch -a lists them)", base)
	}
	mb, err := r.git(ctx, "merge-base", base, "HEAD")
	if err != nil {
		return Changes{}, fmt.Errorf("%s and HEAD have no common ancestor: %w", base, err)
	}
	return r.diff(ctx, base+"...HEAD", strings.TrimSpace(mb)+"..HEAD", false)
}

// defaultBranch is origin's HEAD, else main, else master.
func (r repo) defaultBranch(ctx context.Context) (string, error) {
	if out, err := r.git(ctx, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); err == nil && strings.TrimSpace(out) != "" {
		return strings.TrimSpace(out), nil
	}
	for _, b := range []string{"main", "master", "origin/main", "origin/master"} {
		if _, err := r.git(ctx, "rev-parse", "--verify", "--quiet", b+"^{commit}"); err == nil {
			return b, nil
		}
	}
	return "", errors.New("no default branch to compare with (neither origin/HEAD, main nor master exists): pass --base REF or --uncommitted")
}

// diff runs git diff (and, for uncommitted changes, adds untracked files
// as new-file diffs).
func (r repo) diff(ctx context.Context, label, rev string, untracked bool) (Changes, error) {
	common := []string{"diff", "--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty", "--find-renames"}
	stat, err := r.git(ctx, append(common, "--stat", rev)...)
	if err != nil {
		return Changes{}, err
	}
	d, err := r.git(ctx, append(common, rev)...)
	if err != nil {
		return Changes{}, err
	}
	c := Changes{Range: label, Stat: stat, Diff: d}
	if !untracked {
		return c, nil
	}
	list, err := r.git(ctx, "ls-files", "--others", "--exclude-standard", "--exclude=/.openseek/", "-z")
	if err != nil {
		return Changes{}, err
	}
	var b strings.Builder
	b.WriteString(c.Diff)
	for _, p := range strings.Split(strings.TrimSuffix(list, "\x00"), "\x00") {
		if p == "" {
			continue
		}
		// git diff --no-index exits 1 when the files differ, as they do.
		out, code, err := r.run(ctx, "diff", "--no-ext-diff", "--no-textconv", "--no-index", "--", os.DevNull, p)
		if code != 0 && code != 1 {
			return Changes{}, fmt.Errorf("diff of untracked file %s: %w", p, err)
		}
		b.WriteString(out)
		c.Stat += fmt.Sprintf(" %s (untracked, new)\n", p)
	}
	c.Diff = b.String()
	return c, nil
}

// since is the changes of dir's work tree (committed since, and not
// committed; untracked files included) against the commit sha.
func since(ctx context.Context, dir, sha string) (Changes, error) {
	top, err := repo{dir: dir}.git(ctx, "rev-parse", "--show-toplevel")
	if err != nil || strings.TrimSpace(top) == "" {
		abs, _ := filepath.Abs(dir)
		return Changes{}, fmt.Errorf("%w: %s is not inside a git work tree; the goal's baseline is a commit", ErrNotGit, abs)
	}
	r := repo{dir: strings.TrimSpace(top)}
	if strings.HasPrefix(sha, "-") {
		return Changes{}, fmt.Errorf("the goal's baseline %q is not a git revision", sha)
	}
	if _, err := r.git(ctx, "rev-parse", "--verify", "--quiet", sha+"^{commit}"); err != nil {
		return Changes{}, fmt.Errorf("the goal's baseline commit %s is not in this repository (was it set in another clone?)", sha)
	}
	c, err := r.diff(ctx, "changes since "+shortSHA(sha)+" (the goal's baseline), uncommitted ones included", sha, true)
	c.Root = r.dir
	return c, err
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
