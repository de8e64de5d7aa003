package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/openseek/openseek/internal/tool"
)

type grepArgs struct {
	Pattern    string `json:"pattern" jsonschema:"RE2 regular expression"`
	Path       string `json:"path,omitempty" jsonschema:"file or directory (default: workspace)"`
	Glob       string `json:"glob,omitempty" jsonschema:"only files matching, e.g. *.go or src/**/*.ts"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	Context    int    `json:"context,omitempty" jsonschema:"lines before and after each match"`
	FilesOnly  bool   `json:"files_only,omitempty" jsonschema:"list matching files only"`
	Limit      int    `json:"limit,omitempty" jsonschema:"max result lines (default 100)"`
}

const grepDescription = "Search file contents with an RE2 regex; prints path:line:text. " +
	"Skips .gitignored, hidden and binary files."

// Limits of grep.
const (
	defaultGrepLimit = 100
	maxGrepLimit     = 2000
	maxContext       = 10
)

// Grep is the grep tool.
func Grep() tool.Tool {
	return tool.Func("grep", grepDescription, runGrep)
}

// fileMatches is what one file contributed.
type fileMatches struct {
	rel   string
	count int      // matching lines
	lines []string // rendered result lines (with context), nil past the cutoff
}

// collector gathers per-file results from the parallel walk and keeps
// the text of only as many files (in path order) as the output can show.
type collector struct {
	mu      sync.Mutex
	secrets []string // secret files left out (policy.Guard.Read), by path
	files   []fileMatches
	kept    int    // result lines held
	limit   int    // lines to show
	cutoff  string // files after this path keep no text; "" = none yet
}

func (c *collector) secret(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.secrets = append(c.secrets, rel)
}

func (c *collector) add(fm fileMatches) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cutoff != "" && fm.rel > c.cutoff {
		fm.lines = nil
	}
	c.files = append(c.files, fm)
	c.kept += len(fm.lines)
	if c.kept <= 4*c.limit {
		return
	}
	// Drop the text of the files that cannot be shown any more.
	slices.SortFunc(c.files, func(a, b fileMatches) int { return strings.Compare(a.rel, b.rel) })
	shown := 0
	for i := range c.files {
		if shown >= c.limit {
			c.kept -= len(c.files[i].lines)
			c.files[i].lines = nil
			continue
		}
		shown += len(c.files[i].lines)
		c.cutoff = c.files[i].rel
	}
}

func runGrep(ctx context.Context, env *tool.Env, a grepArgs) tool.Result {
	brief := "grep " + a.Pattern
	fail := func(format string, args ...any) tool.Result {
		r := tool.Errorf("error: grep: "+format, args...)
		r.Brief = brief
		return r
	}
	if a.Pattern == "" {
		return fail("pattern is empty")
	}
	m, err := newMatcher(a.Pattern, a.IgnoreCase)
	if err != nil {
		return fail("invalid RE2 pattern: %v", err)
	}
	if a.Glob != "" && !doublestar.ValidatePattern(a.Glob) {
		return fail("invalid glob %q", a.Glob)
	}
	limit := a.Limit
	if limit <= 0 {
		limit = defaultGrepLimit
	}
	limit = min(limit, maxGrepLimit)
	ctxLines := min(max(a.Context, 0), maxContext)
	root, start, err := searchRoot(env, a.Path)
	if err != nil {
		return fail("%v", err)
	}
	col := &collector{limit: limit}
	// File buffers are recycled across the parallel walk of this call.
	pool := &sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
	prefix, anchored := relPrefix(env, start), strings.Contains(a.Glob, "/")
	searchFile := func(abs, rel string) {
		if a.Glob != "" && !globMatch(a.Glob, strings.TrimPrefix(rel, prefix), anchored) {
			return
		}
		if env.CheckRead(ctx, "grep", abs) != nil {
			col.secret(rel)
			return
		}
		buf := pool.Get().(*[]byte)
		defer pool.Put(buf)
		data, ok := readFile(abs, buf)
		if !ok || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		if fm := grepFile(m, data, rel, ctxLines, a.FilesOnly, limit); fm.count > 0 {
			col.add(fm)
		}
	}
	if fi, err := os.Stat(start); err == nil && !fi.IsDir() {
		prefix = relPrefix(env, filepath.Dir(start))
		searchFile(start, env.Rel(start))
	} else {
		w := &walker{root: root, hidden: hiddenPath(env.Rel(start)), file: searchFile}
		w.walk(ctx, start)
	}
	if err := ctx.Err(); err != nil {
		return fail("%v", err)
	}
	return grepResult(col, a, limit, brief)
}

// grepFile renders the matches of one file's data.
func grepFile(m *matcher, data []byte, rel string, ctxLines int, filesOnly bool, limit int) fileMatches {
	fm := fileMatches{rel: rel}
	lineNo, counted := 1, 0 // line number at byte offset counted
	lastShown := 0          // last line number printed (context included)
	var starts []int        // line starts, built only when context is asked
	m.each(data, func(s, e int) bool {
		fm.count++
		if filesOnly {
			return false
		}
		lineNo += bytes.Count(data[counted:s], []byte{'\n'})
		counted = s
		if len(fm.lines) >= limit {
			return true // keep counting
		}
		if ctxLines == 0 {
			fm.lines = append(fm.lines, rel+":"+strconv.Itoa(lineNo)+":"+clipLine(string(data[s:e])))
			return true
		}
		if starts == nil {
			starts = lineStarts(data)
		}
		first := max(1, lineNo-ctxLines, lastShown+1)
		if lastShown > 0 && first > lastShown+1 {
			fm.lines = append(fm.lines, "--")
		}
		for n := first; n < lineNo; n++ {
			fm.lines = append(fm.lines, rel+"-"+strconv.Itoa(n)+"-"+clipLine(lineText(data, starts, n)))
		}
		if lineNo > lastShown {
			fm.lines = append(fm.lines, rel+":"+strconv.Itoa(lineNo)+":"+clipLine(string(data[s:e])))
		} else {
			// The line was printed as context of the previous match.
			fm.lines[len(fm.lines)-1-(lastShown-lineNo)] = rel + ":" + strconv.Itoa(lineNo) + ":" + clipLine(string(data[s:e]))
		}
		last := min(lineNo+ctxLines, len(starts))
		if n := len(starts); n > 0 && starts[n-1] == len(data) {
			last = min(last, n-1) // no line after the final newline
		}
		for n := max(lineNo+1, lastShown+1); n <= last; n++ {
			fm.lines = append(fm.lines, rel+"-"+strconv.Itoa(n)+"-"+clipLine(lineText(data, starts, n)))
		}
		lastShown = max(lastShown, last, lineNo)
		return true
	})
	return fm
}

func lineStarts(b []byte) []int {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineText is line n (1-based) of b without its newline.
func lineText(b []byte, starts []int, n int) string {
	s := starts[n-1]
	e := len(b)
	if n < len(starts) {
		e = starts[n] - 1
	}
	return string(b[s:e])
}

func grepResult(col *collector, a grepArgs, limit int, brief string) tool.Result {
	files := col.files
	slices.SortFunc(files, func(a, b fileMatches) int { return strings.Compare(a.rel, b.rel) })
	total := 0
	for _, f := range files {
		total += f.count
	}
	if total == 0 {
		r := tool.TextResult("no matches" + secretsFooter(col.secrets))
		r.Brief = brief
		return r
	}
	var out bounded
	shown, shownFiles := 0, 0
	for _, f := range files {
		if shown >= limit {
			break
		}
		if a.FilesOnly {
			if !out.add(f.rel) {
				break
			}
			shown++
			shownFiles++
			continue
		}
		shownFiles++
		for _, l := range f.lines {
			if shown >= limit || !out.add(l) {
				break
			}
			if l != "--" {
				shown++
			}
		}
	}
	text := out.b.String()
	switch {
	case a.FilesOnly && shownFiles < len(files):
		text += footer("showing %d of %d matching files; narrow the pattern, path or glob, or raise limit", shownFiles, len(files))
	case !a.FilesOnly && shown < total:
		text += footer("showing %d of %s in %s; narrow the pattern, path or glob, or raise limit", shown, plural(total, "matching line", "matching lines"), plural(len(files), "file", "files"))
	}
	r := tool.TextResult(strings.TrimSuffix(text, "\n") + secretsFooter(col.secrets))
	r.Brief = fmt.Sprintf("%s (%s)", brief, plural(total, "match", "matches"))
	return r
}

// searchRoot resolves the path argument: root is the workspace (where
// ignore files are read from), start the directory or file to search.
func searchRoot(env *tool.Env, path string) (root, start string, err error) {
	if path == "" {
		path = "."
	}
	start, err = env.Resolve(path)
	if err != nil {
		return "", "", err
	}
	if _, err := os.Stat(start); err != nil {
		return "", "", fmt.Errorf("%s: no such file or directory", path)
	}
	root, err = env.Resolve(".")
	if err != nil {
		return "", "", err
	}
	rel, err := filepath.Rel(root, start)
	if err != nil || strings.HasPrefix(rel, "..") {
		root = start // an extra root outside the workspace
	}
	return root, start, nil
}

// globMatch matches a slash path relative to the search directory:
// unless anchored (the pattern as given held a "/"), the pattern matches
// the file name at any depth, as in .gitignore.
func globMatch(pattern, rel string, anchored bool) bool {
	if !anchored {
		rel = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	ok, _ := doublestar.Match(pattern, rel)
	return ok
}

// relPrefix is the workspace-relative spelling of the directory start
// with a trailing "/", or "" for the workspace itself: the walk's paths
// minus this prefix are relative to start.
func relPrefix(env *tool.Env, start string) string {
	p := env.Rel(start)
	if p == "." {
		return ""
	}
	return p + "/"
}

// maxFileSize bounds the files grep reads.
const maxFileSize = 64 << 20

// readFile reads the file at abs into buf; false when it cannot. It
// uses the system calls directly: an *os.File costs a poller
// registration, a finaliser and a second read per file, which is most of
// grep's time on a tree of small files.
func readFile(abs string, buf *[]byte) ([]byte, bool) {
	fd, err := syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Size > maxFileSize {
		return nil, false
	}
	size := int(st.Size)
	if cap(*buf) < size+1 {
		*buf = make([]byte, 0, size+1)
	}
	b := (*buf)[:cap(*buf)]
	n := 0
	for n < len(b) {
		k, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || k <= 0 {
			break
		}
		n += k
		if n == size {
			break // the size fstat gave; a file still growing is read as it was
		}
	}
	return b[:n], true
}

// secretsFooter says how many secret files the search left out, naming
// a few (names only), and what the user can do.
func secretsFooter(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	slices.Sort(paths)
	names := paths[:min(len(paths), 3)]
	more := ""
	if len(paths) > len(names) {
		more = ", …"
	}
	return "\n" + footer("%s not searched: they hold secrets (%s%s); the user can allow them with [files] allow_secrets in ~/.openseek/config.toml",
		plural(len(paths), "file", "files"), strings.Join(names, ", "), more)
}
