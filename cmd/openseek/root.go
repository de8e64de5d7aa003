package main

import (
	"os"
	"path/filepath"
)

// findProjectRoot makes the project root the workspace when OpenSeek is
// started in a subdirectory of a project without --dir: sessions, skills,
// config and hooks belong to the root (as AGENTS.md does), and so does
// the sandbox's writable root, while shell commands start where the user
// is.
func (c *cli) findProjectRoot() {
	cwd, err := os.Getwd()
	if err != nil {
		return
	}
	never := []string{"/", "/tmp", "/var/tmp", os.TempDir(), c.getenv("TMPDIR"), c.getenv("HOME")}
	if root := projectRoot(cwd, c.getenv("HOME"), never); root != cwd {
		c.g.dir, c.g.cwd = root, cwd
	}
}

// projectRoot is the project that start lies in: the nearest directory
// at or above start (and below home) that is a git top level (it holds
// .git) or holds a project configuration (.openseek/config.toml), else
// start itself. A bare .openseek (sessions a run left behind) does not
// make a project: a stray one in a shared ancestor such as /tmp would
// merge the sessions of unrelated projects and widen the sandbox to it.
// The directories in never (/, the temporary directories, the home)
// count for nothing, whatever they hold.
func projectRoot(start, home string, never []string) string {
	for dir := start; ; {
		if dir == home {
			return start
		}
		if !isOneOf(dir, never) {
			if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
				return dir
			}
			if st, err := os.Stat(filepath.Join(dir, ".openseek", "config.toml")); err == nil && st.Mode().IsRegular() {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return start
		}
		dir = parent
	}
}

// isOneOf reports whether dir is one of dirs (cleaned; empty ones are
// skipped).
func isOneOf(dir string, dirs []string) bool {
	for _, d := range dirs {
		if d != "" && filepath.Clean(d) == dir {
			return true
		}
	}
	return false
}

// workDir is where commands that act on "the current directory" (such as
// apply-patch) act: where the user is.
func (c *cli) workDir() string {
	if c.g.cwd != "" {
		return c.g.cwd
	}
	return c.g.dir
}
