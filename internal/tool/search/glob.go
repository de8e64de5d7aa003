package search

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/openseek/openseek/internal/tool"
)

type globArgs struct {
	Pattern string `json:"pattern" jsonschema:"e.g. **/*.go or src/*.ts; without / it matches names at any depth"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search (default: workspace)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"max files (default 200)"`
}

const globDescription = "Find files by glob pattern (** spans directories); paths sorted. " +
	"Skips .gitignored and hidden files."

const (
	defaultGlobLimit = 200
	maxGlobLimit     = 5000
)

// Glob is the glob tool.
func Glob() tool.Tool {
	return tool.Func("glob", globDescription, runGlob)
}

func runGlob(ctx context.Context, env *tool.Env, a globArgs) tool.Result {
	brief := "glob " + a.Pattern
	fail := func(format string, args ...any) tool.Result {
		r := tool.Errorf("error: glob: "+format, args...)
		r.Brief = brief
		return r
	}
	pattern := strings.TrimPrefix(a.Pattern, "./")
	if pattern == "" {
		return fail("pattern is empty")
	}
	if !doublestar.ValidatePattern(pattern) {
		return fail("invalid glob pattern %q", a.Pattern)
	}
	if strings.HasPrefix(pattern, "/") || strings.HasPrefix(pattern, "../") {
		return fail("the pattern must be relative; give the directory as path")
	}
	limit := a.Limit
	if limit <= 0 {
		limit = defaultGlobLimit
	}
	limit = min(limit, maxGlobLimit)
	root, start, err := searchRoot(env, a.Path)
	if err != nil {
		return fail("%v", err)
	}
	// A literal leading directory ("src/" of "src/**/*.ts") is where the
	// walk starts.
	anchored := strings.Contains(pattern, "/")
	base, rest := doublestar.SplitPattern(pattern)
	if base != "." && anchored {
		if s, err := env.Resolve(path.Join(env.Rel(start), base)); err == nil {
			start, pattern = s, rest
		}
	}
	prefix := relPrefix(env, start)
	var (
		mu      sync.Mutex
		matches []string
	)
	w := &walker{
		root:   root,
		hidden: hiddenPath(prefix) || hiddenPath(pattern),
		file: func(abs, rel string) {
			if globMatch(pattern, strings.TrimPrefix(rel, prefix), anchored) {
				mu.Lock()
				matches = append(matches, rel)
				mu.Unlock()
			}
		},
	}
	w.walk(ctx, start)
	if err := ctx.Err(); err != nil {
		return fail("%v", err)
	}
	if len(matches) == 0 {
		r := tool.TextResult("no files match " + a.Pattern)
		r.Brief = brief
		return r
	}
	slices.Sort(matches)
	var out bounded
	shown := 0
	for _, m := range matches {
		if shown == limit || !out.add(m) {
			break
		}
		shown++
	}
	text := out.b.String()
	if shown < len(matches) {
		text += footer("showing %d of %d files; narrow the pattern or path, or raise limit", shown, len(matches))
	}
	r := tool.TextResult(strings.TrimSuffix(text, "\n"))
	r.Brief = fmt.Sprintf("%s (%s)", brief, plural(len(matches), "file", "files"))
	return r
}
