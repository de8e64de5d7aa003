package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// Hides names the directory that hides path from commands run under p
// (the private /tmp and /var/tmp, the empty /run, /var/run and
// $XDG_RUNTIME_DIR of a command without network), or "" when a command
// sees path as the host does. A program installed there cannot run
// sandboxed: callers say so instead of failing obscurely.
func (p Policy) Hides(path string) string {
	if p.Network {
		return ""
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	path = filepath.Clean(path)
	dirs := append(append([]string{}, tmpDirs...), "/run", "/var/run")
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		dirs = append(dirs, filepath.Clean(x))
	}
	// What the sandbox brings back inside a hidden directory: the
	// workspace, caches and writable roots below it (a writable /tmp is
	// the private one, not the host's).
	keep := append(append([]string{p.Workspace}, p.Caches...), p.WritableRoots...)
	for _, d := range dirs {
		if !strings.HasPrefix(path, d+"/") {
			continue
		}
		for _, k := range keep {
			if strings.HasPrefix(k, d+"/") && (path == k || strings.HasPrefix(path, k+"/")) {
				return ""
			}
		}
		return d
	}
	return ""
}
