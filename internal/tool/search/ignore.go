package search

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreFiles are the names read in every directory; later ones win.
func ignoreFiles() []string { return []string{".gitignore", ".ignore"} }

// rules is the ignore rules in force in one directory: its own patterns
// over its parent's, as git reads nested .gitignore files. A rules value
// is never changed once built, so walkers share it freely.
type rules struct {
	parent   *rules
	patterns []gitignore.Pattern
}

// ignored reports whether the path (components relative to the ignore
// root) is ignored: the last matching pattern decides, the deepest
// directory's file first, and "!pattern" re-includes.
func (r *rules) ignored(path []string, isDir bool) bool {
	for ; r != nil; r = r.parent {
		for i := len(r.patterns) - 1; i >= 0; i-- {
			switch r.patterns[i].Match(path, isDir) {
			case gitignore.Exclude:
				return true
			case gitignore.Include:
				return false
			}
		}
	}
	return false
}

// child returns the rules in force in dir (absolute; domain its
// components relative to the ignore root), reading its ignore files.
func (r *rules) child(dir string, domain []string, names map[string]bool) *rules {
	var pats []gitignore.Pattern
	for _, name := range ignoreFiles() {
		if names != nil && !names[name] {
			continue
		}
		pats = append(pats, readPatterns(filepath.Join(dir, name), domain)...)
	}
	if len(pats) == 0 {
		return r
	}
	return &rules{parent: r, patterns: pats}
}

// readPatterns parses one ignore file; a missing file has none.
func readPatterns(path string, domain []string) []gitignore.Pattern {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, gitignore.ParsePattern(line, domain))
	}
	return out
}

// rootRules are the rules in force when a walk enters start (absolute,
// inside root): root's .git/info/exclude and the ignore files of the
// directories from root down to start's parent. (The walk reads start's
// own files as it reads any directory's.)
func rootRules(root, start string) *rules {
	var r *rules
	if pats := readPatterns(filepath.Join(root, ".git", "info", "exclude"), nil); len(pats) > 0 {
		r = &rules{patterns: pats}
	}
	parts := splitRel(root, start)
	if len(parts) == 0 {
		return r
	}
	r = r.child(root, nil, nil)
	dir := root
	for i, c := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, c)
		r = r.child(dir, parts[:i+1:i+1], nil)
	}
	return r
}

// startRules are the rules a walk from start uses, and how many leading
// path components (of paths relative to root) they do not see. A
// directory the user names explicitly is searched even when it is
// ignored: the rules are then read from start down only, as if start
// were the root.
func startRules(root, start string) (*rules, int) {
	r := rootRules(root, start)
	if parts := splitRel(root, start); len(parts) > 0 && r.ignored(parts, true) {
		return rootRules(start, start), len(parts)
	}
	return r, 0
}
