package subrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/hostgit"
)

// Worktree is a worker's own git worktree: a checkout of the
// repository's HEAD on a new branch under the worker root.
type Worktree struct {
	Dir    string `json:"worktree"`
	Branch string `json:"branch"`
}

// NewWorktree creates a worktree of the repository containing repo under
// root (absolute; created when missing) on a new branch named after id.
func NewWorktree(ctx context.Context, repo, root, id string) (*Worktree, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("worker input requires an absolute `worker_root`")
	}
	top, err := git(ctx, repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("a worker needs a git repository with a commit: %s", err)
	}
	if _, err := git(ctx, top, "rev-parse", "--verify", "HEAD"); err != nil {
		return nil, fmt.Errorf("a worker needs a git repository with a commit: %s", err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create worker_root: %w", err)
	}
	if id == "" {
		id = time.Now().UTC().Format("20060102-150405.000")
		id = strings.ReplaceAll(id, ".", "-")
	}
	name := "worker-" + id
	dir := filepath.Join(root, name)
	for i := 2; exists(dir); i++ {
		name = fmt.Sprintf("worker-%s-%d", id, i)
		dir = filepath.Join(root, name)
	}
	branch := "openseek/" + name
	if _, err := git(ctx, top, "worktree", "add", "-q", "-b", branch, dir, "HEAD"); err != nil {
		return nil, fmt.Errorf("create the worker's worktree: %s", err)
	}
	return &Worktree{Dir: dir, Branch: branch}, nil
}

// Changed lists the files the worker changed in its worktree (status
// --porcelain paths), or nil.
func (w *Worktree) Changed(ctx context.Context) []string {
	out, err := git(ctx, w.Dir, "status", "--porcelain", "--untracked-files=all", "--ignore-submodules=dirty")
	if err != nil {
		return nil
	}
	var files []string
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 3 && !strings.Contains(l[3:], ".openseek/") {
			files = append(files, l[3:])
		}
	}
	return files
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// git runs the user's git in dir, hardened (hostgit: nothing in the
// repository makes it run a program).
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, stderr, err := hostgit.Git{Dir: dir}.Run(ctx, args...)
	if err != nil {
		msg := strings.TrimSpace(stderr + out)
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimSpace(out), nil
}
