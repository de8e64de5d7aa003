package fleet

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/hostgit"
)

// maxDiff caps the diff kept in a task record (the bucket's values stay
// small); the workspace keeps the whole change.
const maxDiff = 64 << 10

// workspace returns the task's own working tree under root, creating it
// (a detached git worktree of Dir, or a clone of Repo) unless it is there
// from an earlier attempt (resumed = true). Two tasks never share one.
func workspace(ctx context.Context, root string, t *Task) (dir, base string, resumed bool, err error) {
	dir = filepath.Join(root, t.ID)
	if st, err := os.Stat(filepath.Join(dir, ".git")); err == nil && st != nil {
		base := t.Base
		if base == "" {
			base, _ = git(ctx, dir, "rev-parse", "HEAD")
		}
		return dir, base, true, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", "", false, fmt.Errorf("workspace root %s: %w", root, err)
	}
	_ = os.RemoveAll(dir) // a half-made workspace of a killed attempt
	if t.Repo != "" {
		if _, err := git(ctx, "", "clone", "--quiet", "--", t.Repo, dir); err != nil {
			return "", "", false, fmt.Errorf("clone %s: %w", t.Repo, err)
		}
	} else {
		st, err := os.Stat(t.Dir)
		if err != nil || !st.IsDir() {
			return "", "", false, fmt.Errorf("the task's directory %s does not exist on this worker (it vanished, or the task was added on another machine: use --repo URL there)", t.Dir)
		}
		if _, err := git(ctx, t.Dir, "rev-parse", "--verify", "HEAD"); err != nil {
			return "", "", false, fmt.Errorf("%s is not a git repository with a commit: each task runs in its own git worktree of it (git init && git commit first)", t.Dir)
		}
		if err := addWorktree(ctx, t.Dir, dir, "HEAD"); err != nil {
			return "", "", false, fmt.Errorf("create a worktree of %s: %w", t.Dir, err)
		}
	}
	base, err = git(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return "", "", false, err
	}
	return dir, base, false, nil
}

// addWorktree adds a detached worktree of repo at dir, at rev. Workers on one
// machine add worktrees of the same repository at once, and git reads the
// other worktrees' metadata while one is half made ("failed to read
// .git/worktrees/…/commondir"), so a failed add is tried again after a
// short, growing pause.
func addWorktree(ctx context.Context, repo, dir, rev string) error {
	var err error
	for attempt := range 6 {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt*attempt*25+rand.IntN(50)) * time.Millisecond):
			}
			_ = os.RemoveAll(dir)
		}
		// --force: a worktree a killed attempt half-made is still registered.
		if _, err = git(ctx, repo, "worktree", "add", "--force", "--detach", "--quiet", dir, rev); err == nil {
			return nil
		}
	}
	return err
}

// changes returns the unified diff of the workspace against base
// (untracked files included, the session directory left out) and the
// number of lines added plus removed.
func changes(ctx context.Context, dir, base string) (string, int, error) {
	if _, err := git(ctx, dir, "add", "-A", "--", ".", ":(exclude).openseek"); err != nil {
		return "", 0, err
	}
	stat, err := git(ctx, dir, "diff", "--cached", "--numstat", base)
	if err != nil {
		return "", 0, err
	}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(stat))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 {
			a, _ := strconv.Atoi(f[0]) // "-" for binary files counts 0
			d, _ := strconv.Atoi(f[1])
			n += a + d
		}
	}
	diff, err := git(ctx, dir, "diff", "--cached", base)
	if err != nil {
		return "", 0, err
	}
	if diff != "" {
		diff += "\n"
	}
	if len(diff) > maxDiff {
		diff = diff[:maxDiff] + "\n… (diff cut at 64 KiB; the whole change is in " + dir + ")\n"
	}
	return diff, n, nil
}

// git runs git in dir, hardened (hostgit: nothing in the repository or
// the task's workspace makes it run a program).
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return hostgit.Git{Dir: dir}.Output(ctx, args...)
}
