package search

import (
	"context"
	"slices"
	"sync"
)

// Files lists the workspace's files (slash paths relative to root, sorted)
// as the search tools see them: what .gitignore and .ignore leave, no
// hidden entries, no symbolic links. At most limit paths are returned;
// more reports that some were left out. The terminal UI completes @
// mentions from it.
func Files(ctx context.Context, root string, limit int) (paths []string, more bool) {
	var mu sync.Mutex
	w := &walker{root: root, file: func(_, rel string) {
		mu.Lock()
		defer mu.Unlock()
		if len(paths) < limit {
			paths = append(paths, rel)
		} else {
			more = true
		}
	}}
	w.walk(ctx, root)
	slices.Sort(paths)
	return paths, more
}
