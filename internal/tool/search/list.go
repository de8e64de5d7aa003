package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openseek/openseek/internal/tool"
)

type listArgs struct {
	Path  string `json:"path,omitempty" jsonschema:"directory (default: workspace)"`
	Depth int    `json:"depth,omitempty" jsonschema:"levels to show (default 2)"`
	Limit int    `json:"limit,omitempty" jsonschema:"max entries (default 300)"`
}

const listDescription = "List a directory as an indented tree (directories end in /). " +
	"Skips .gitignored and hidden entries."

const (
	defaultListDepth = 2
	maxListDepth     = 8
	defaultListLimit = 300
	maxListLimit     = 3000
)

// List is the list tool.
func List() tool.Tool {
	return tool.Func("list", listDescription, runList)
}

func runList(ctx context.Context, env *tool.Env, a listArgs) tool.Result {
	brief := "list " + a.Path
	if a.Path == "" {
		brief = "list ."
	}
	fail := func(format string, args ...any) tool.Result {
		r := tool.Errorf("error: list: "+format, args...)
		r.Brief = brief
		return r
	}
	depth := a.Depth
	if depth <= 0 {
		depth = defaultListDepth
	}
	depth = min(depth, maxListDepth)
	limit := a.Limit
	if limit <= 0 {
		limit = defaultListLimit
	}
	limit = min(limit, maxListLimit)
	root, start, err := searchRoot(env, a.Path)
	if err != nil {
		return fail("%v", err)
	}
	if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
		return fail("%s is not a directory; use read for files", a.Path)
	}
	l := &lister{hidden: hiddenPath(env.Rel(start)), depth: depth, limit: limit}
	rules, skip := startRules(root, start)
	l.skip = skip
	l.dir(ctx, start, splitRel(root, start), rules, 0)
	if err := ctx.Err(); err != nil {
		return fail("%v", err)
	}
	text := l.out.b.String()
	if l.total == 0 {
		text = "(empty directory)\n"
	}
	if l.shown < l.total {
		text += footer("showing %d of %d entries; list a subdirectory or raise limit", l.shown, l.total)
	}
	r := tool.TextResult(strings.TrimSuffix(text, "\n"))
	r.Brief = fmt.Sprintf("%s (%s)", brief, plural(l.total, "entry", "entries"))
	return r
}

// lister renders a directory tree breadth-limited by depth; it keeps
// counting entries past the limit so the footer can say what was cut.
type lister struct {
	skip         int // leading path components the rules do not see
	hidden       bool
	depth, limit int
	out          bounded
	shown, total int
}

func (l *lister) dir(ctx context.Context, abs string, parts []string, r *rules, level int) {
	if ctx.Err() != nil {
		return
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return
	}
	var names map[string]bool
	for _, e := range entries {
		if n := e.Name(); n == ".gitignore" || n == ".ignore" {
			if names == nil {
				names = map[string]bool{}
			}
			names[n] = true
		}
	}
	if names != nil {
		r = r.child(abs, parts[l.skip:], names)
	}
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	indent := strings.Repeat("  ", level)
	for _, e := range entries {
		name := e.Name()
		if !l.hidden && name[0] == '.' || name == ".git" {
			continue
		}
		isDir := e.IsDir()
		sub := append(parts[:len(parts):len(parts)], name)
		if r.ignored(sub[l.skip:], isDir) {
			continue
		}
		l.total++
		line := indent + name
		if isDir {
			line += "/"
		} else if e.Type()&os.ModeSymlink != 0 {
			line += "@"
		}
		if l.shown < l.limit && l.out.add(line) {
			l.shown++
		}
		if isDir && level+1 < l.depth {
			l.dir(ctx, filepath.Join(abs, name), sub, r, level+1)
		}
	}
}
