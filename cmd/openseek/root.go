package main

import (
	"os"
	"path/filepath"
)

// findProjectRoot makes the project root the workspace when OpenSeek is
// started in a subdirectory of a project without --dir: sessions, skills,
// config and hooks belong to the root (as AGENTS.md does), while shell
// commands start where the user is. The root is the nearest directory
// above with a .git or an .openseek directory, below the home directory.
func (c *cli) findProjectRoot() {
	cwd, err := os.Getwd()
	if err != nil {
		return
	}
	if root := projectRoot(cwd, c.getenv("HOME")); root != cwd {
		c.g.dir, c.g.cwd = root, cwd
	}
}

func projectRoot(start, home string) string {
	for dir := start; ; {
		if dir == home || dir == "/" {
			return start
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if st, err := os.Stat(filepath.Join(dir, ".openseek")); err == nil && st.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return start
		}
		dir = parent
	}
}

// workDir is where commands that act on "the current directory" (such as
// apply-patch) act: where the user is.
func (c *cli) workDir() string {
	if c.g.cwd != "" {
		return c.g.cwd
	}
	return c.g.dir
}
