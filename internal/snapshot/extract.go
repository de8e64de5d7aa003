package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/openseek/openseek/internal/hostgit"
)

// Extract writes the files of snapshot id into dest, an existing
// directory, leaving the workspace and the side repository's own index
// alone: a copy of the tree as it was, for `openseek replay`.
func (r *Repo) Extract(ctx context.Context, id, dest string) error {
	if !isHex(id) {
		return fmt.Errorf("%w %q: a snapshot id is a hexadecimal commit id", ErrUnknownSnapshot, id)
	}
	if !isRepo(r.gitDir) && (r.legacy == "" || !isRepo(r.legacy)) {
		return fmt.Errorf("%w %s: there is no snapshot repository at %s (snapshots are kept per user and per workspace path: run as the user who ran the session, in the same directory)", ErrUnknownSnapshot, id, r.gitDir)
	}
	unlock, err := r.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := r.init(ctx); err != nil {
		return err
	}
	if _, err := r.git(ctx, "rev-parse", "--quiet", "--verify", id+"^{commit}"); err != nil {
		return fmt.Errorf("%w %s: the snapshot repository %s does not hold it", ErrUnknownSnapshot, id, r.gitDir)
	}
	tmp, err := os.MkdirTemp("", "openseek-extract-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dest, err = filepath.Abs(dest)
	if err != nil {
		return err
	}
	g := hostgit.Git{Dir: dest, Env: append(r.env(false), "GIT_WORK_TREE="+dest, "GIT_INDEX_FILE="+filepath.Join(tmp, "index")), OwnConfig: true}
	for _, args := range [][]string{{"read-tree", id + "^{tree}"}, {"checkout-index", "--all", "--force"}} {
		if _, _, err := g.Run(ctx, args...); err != nil {
			var ge *hostgit.Error
			if errors.As(err, &ge) {
				return fmt.Errorf("git %s (snapshot repository %s): %s", hostgit.Verb(args), r.gitDir, ge.Message())
			}
			return fmt.Errorf("extract snapshot %s into %s: %w", id, dest, err)
		}
	}
	return nil
}
