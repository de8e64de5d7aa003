package search

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// walker visits the files under a directory in parallel, skipping what
// .gitignore (nested, with negations) ignores, hidden entries (unless
// asked for), and symbolic links (which could lead out of the
// workspace).
type walker struct {
	root   string // the ignore root: the workspace
	hidden bool   // visit dot files and directories too
	// file is called for every file, concurrently; rel is relative to
	// root with forward slashes.
	file func(abs, rel string)
	// dir, when set, is asked whether to enter a directory.
	dir func(rel string) bool
}

// job is one directory to read.
type job struct {
	abs   string
	parts []string // path components relative to root
	rules *rules
}

// walk visits everything under start (absolute, inside w.root).
func (w *walker) walk(ctx context.Context, start string) {
	parts := splitRel(w.root, start)
	workers := max(2, 2*runtime.GOMAXPROCS(0))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	var skip int // leading components of parts the rules do not see
	var visit func(j job)
	visit = func(j job) {
		defer wg.Done()
		if ctx.Err() != nil {
			return
		}
		f, err := os.Open(j.abs)
		if err != nil {
			return
		}
		entries, _ := f.ReadDir(-1)
		f.Close()
		var names map[string]bool
		for _, e := range entries {
			if n := e.Name(); n == ".gitignore" || n == ".ignore" {
				if names == nil {
					names = map[string]bool{}
				}
				names[n] = true
			}
		}
		rules := j.rules
		if len(names) > 0 {
			rules = rules.child(j.abs, j.parts[skip:], names)
		}
		for _, e := range entries {
			name := e.Name()
			if !w.hidden && name[0] == '.' || name == ".git" {
				continue
			}
			typ := e.Type()
			if typ&os.ModeSymlink != 0 {
				continue
			}
			isDir := typ.IsDir()
			parts := append(j.parts[:len(j.parts):len(j.parts)], name)
			if rules.ignored(parts[skip:], isDir) {
				continue
			}
			abs := j.abs + string(filepath.Separator) + name
			if !isDir {
				if typ.IsRegular() {
					w.file(abs, strings.Join(parts, "/"))
				}
				continue
			}
			if w.dir != nil && !w.dir(strings.Join(parts, "/")) {
				continue
			}
			wg.Add(1)
			sub := job{abs: abs, parts: parts, rules: rules}
			select {
			case sem <- struct{}{}:
				go func() {
					defer func() { <-sem }()
					visit(sub)
				}()
			default:
				visit(sub)
			}
		}
	}
	var rules *rules
	rules, skip = startRules(w.root, start)
	wg.Add(1)
	visit(job{abs: start, parts: parts, rules: rules})
	wg.Wait()
}

// splitRel is the components of path relative to root (nil for root).
func splitRel(root, path string) []string {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// hiddenPath reports whether a component of the slash path p is hidden:
// a search that names a dot directory explicitly looks inside it.
func hiddenPath(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if len(c) > 1 && c[0] == '.' && c != ".." {
			return true
		}
	}
	return false
}
