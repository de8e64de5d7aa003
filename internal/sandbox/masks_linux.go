package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/openseek/openseek/internal/secretfile"
)

// homeSecrets are the files below the user's home that hold credentials
// commands have no business reading, checked by name like the
// workspace's (~/.ssh's private keys are found by listing it).
var homeSecrets = []string{".aws/credentials", ".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc",
	".config/gcloud/credentials.db", ".config/gcloud/application_default_credentials.json", ".docker/config.json"}

// maskSecrets hides the secret files of p (Policy.Secrets) from commands:
// the workspace's, found by a walk that skips .git, .openseek and
// node_modules, and the usual ones of the user's home. Each is covered
// by a read-only bind of /dev/null, so a command reads it as empty and
// cannot write it. With watch (a sandbox helper, which serves many
// commands), the walk also sets up the secretWatch that hides the
// workspace's secret files created later; without, the sandbox serves
// one command and hides what exists when it starts.
func maskSecrets(p Policy, watch bool) (*secretWatch, error) {
	if p.Secrets == nil {
		return nil, nil
	}
	var w *secretWatch
	dir := func(string) {}
	if watch {
		w = newSecretWatch(p)
		dir = w.add
	}
	for _, path := range findSecrets(p, dir) {
		if err := maskFile(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // gone since the walk
			}
			return nil, err
		}
	}
	return w, nil
}

// maskFile covers the file at path with a read-only /dev/null.
func maskFile(path string) error {
	if err := unix.Mount("/dev/null", path, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("hide the secret file %s: %w", path, err)
	}
	if err := readOnly(path); err != nil {
		return fmt.Errorf("hide the secret file %s: %w", path, err)
	}
	return nil
}

// secretPaths are the files maskSecrets hides.
func secretPaths(p Policy) []string { return findSecrets(p, func(string) {}) }

// findSecrets is secretPaths; dir is called with each workspace
// directory the walk enters, before it reads it.
func findSecrets(p Policy, dir func(string)) []string {
	var paths []string
	walkSecrets(p, p.Workspace, dir, func(path string) { paths = append(paths, path) })
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		for _, h := range homeSecrets {
			path := filepath.Join(home, h)
			// Named ones always; .npmrc and .pypirc when they hold a token.
			if _, token := secretfile.Named(filepath.Base(path)); regular(path) && (!token || p.Secrets.Secret(path, "")) {
				paths = append(paths, path)
			}
		}
		if ents, err := os.ReadDir(filepath.Join(home, ".ssh")); err == nil {
			for _, e := range ents {
				path := filepath.Join(home, ".ssh", e.Name())
				if p.Secrets.Secret(path, "") && regular(path) {
					paths = append(paths, path)
				}
			}
		}
	}
	return paths
}

// walkSecrets walks root, a directory of p's workspace, skipping .git,
// .openseek and node_modules: dir gets each directory before it is
// read, file each secret regular file.
func walkSecrets(p Policy, root string, dir, file func(string)) {
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: commands cannot read it either
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".openseek", "node_modules":
				if path != p.Workspace {
					return filepath.SkipDir
				}
			}
			dir(path)
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if secret, token := secretfile.Named(d.Name()); !secret && !token {
			return nil
		}
		rel, _ := filepath.Rel(p.Workspace, path)
		if p.Secrets.Secret(path, filepath.ToSlash(rel)) {
			file(path)
		}
		return nil
	})
}

// regular reports whether path is a regular file (not following a link).
func regular(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}
