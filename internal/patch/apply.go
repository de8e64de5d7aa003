package patch

import (
	"bytes"
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/openseek/openseek/internal/beneath"
)

// Files is where a patch applies: how a path of the patch becomes an
// absolute file name, and who may refuse a write.
type Files struct {
	// Resolve turns a path written in the patch into the absolute path to
	// change, or refuses it (a path outside the workspace).
	Resolve func(path string) (string, error)
	// Check is asked once for every absolute path the patch will create,
	// change or delete, before anything is written; nil allows all.
	Check func(abs string) error
	// FS reads and writes the files; nil uses the operating system's,
	// never following a symlink (the resolved paths have none). A file
	// tool gives one confined to the workspace's roots that also never
	// changes a protected directory.
	FS FS
}

// FS is the file operations a patch needs, on absolute paths.
type FS interface {
	Stat(abs string) (iofs.FileInfo, error)
	ReadFile(abs string) ([]byte, error)
	MkdirAll(abs string) error
	// WriteAtomic replaces abs with data (a temporary file renamed over
	// it), so a reader sees the old content or the new.
	WriteAtomic(abs string, data []byte, mode iofs.FileMode) error
	Remove(abs string) error
}

// osFS is FS on the operating system's files, walked from "/" without
// following any symlink (package beneath): the paths Resolve returns have
// none in their existing part, so a directory swapped for a link while
// the patch applies fails the write instead of leading it elsewhere, and
// no temporary file is left behind.
type osFS struct{}

func (osFS) in(abs string, f func(r *beneath.Root, rel string) error) error {
	r, err := beneath.Open("/", beneath.Set{})
	if err != nil {
		return err
	}
	defer r.Close()
	return f(r, strings.TrimPrefix(filepath.ToSlash(filepath.Clean(abs)), "/"))
}

func (o osFS) Stat(abs string) (fi iofs.FileInfo, err error) {
	err = o.in(abs, func(r *beneath.Root, rel string) error { fi, err = r.Lstat(rel); return err })
	return fi, err
}

func (o osFS) ReadFile(abs string) (b []byte, err error) {
	err = o.in(abs, func(r *beneath.Root, rel string) error { b, err = r.ReadFile(rel); return err })
	return b, err
}

func (o osFS) MkdirAll(abs string) error {
	return o.in(abs, func(r *beneath.Root, rel string) error { return r.MkdirAll(rel, 0o755) })
}

func (o osFS) Remove(abs string) error {
	return o.in(abs, func(r *beneath.Root, rel string) error { return r.Remove(rel) })
}

func (o osFS) WriteAtomic(abs string, data []byte, mode iofs.FileMode) error {
	return o.in(abs, func(r *beneath.Root, rel string) error { return r.WriteFile(rel, data, mode) })
}

// Change is what happened, or will happen, to one file.
type Change struct {
	Op   Op     // Add: created; Update: changed (or moved here); Delete: removed
	Path string // the path as written in the patch (a move's destination)
	Abs  string
	New  []byte // the content written (nil for Delete)
	Old  []byte // the content before (nil for Add)
}

// file is the planned state of one absolute path.
type file struct {
	origExists bool
	orig       []byte
	origMode   iofs.FileMode
	exists     bool
	content    []byte
	mode       iofs.FileMode
	display    string // the patch's spelling, for the summary
	order      int    // first touched by this hunk
}

// Plan is a patch checked against the files it changes: every hunk of
// every file located, nothing written yet.
type Plan struct {
	files map[string]*file
	order []string // absolute paths in the order the patch touches them
	fs    FS
}

// HunkError is a hunk that cannot be applied: it names the hunk's file,
// the chunk (1-based, 0 for the file as a whole) and what went wrong.
type HunkError struct {
	Op    Op
	Path  string
	Chunk int
	Line  int // patch line of the failed chunk (or the hunk header)
	Msg   string
}

func (e *HunkError) Error() string {
	if e.Chunk == 0 {
		return fmt.Sprintf("%s %s (patch line %d): %s", e.Op, e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s %s, hunk %d (patch line %d): %s", e.Op, e.Path, e.Chunk, e.Line, e.Msg)
}

// Plan checks every hunk against the current files, in patch order (a
// later hunk sees what an earlier one did), and returns what to write.
// It writes nothing: a patch with one failing hunk changes no file.
func (p *Patch) Plan(fsys Files) (*Plan, error) {
	if len(p.Hunks) == 0 {
		return nil, &ParseError{Msg: "the patch has no hunks; no files were modified"}
	}
	pl := &Plan{files: map[string]*file{}, fs: fsys.FS}
	if pl.fs == nil {
		pl.fs = osFS{}
	}
	for i, h := range p.Hunks {
		if err := pl.hunk(fsys, h, i); err != nil {
			return nil, err
		}
	}
	if fsys.Check != nil {
		for _, abs := range pl.order {
			if f := pl.files[abs]; f.changed() {
				if err := fsys.Check(abs); err != nil {
					return nil, fmt.Errorf("%s: %w", f.display, err)
				}
			}
		}
	}
	return pl, nil
}

func (f *file) changed() bool {
	return f.exists != f.origExists || (f.exists && (!bytes.Equal(f.content, f.orig) || f.mode != f.origMode))
}

// load returns the planned state of abs, reading it from disk the first
// time.
func (pl *Plan) load(abs, display string, order int) (*file, error) {
	if f, ok := pl.files[abs]; ok {
		return f, nil
	}
	f := &file{display: display, order: order, mode: 0o644, origMode: 0o644}
	fi, err := pl.fs.Stat(abs)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, errors.New("is a directory")
	case !fi.Mode().IsRegular():
		return nil, errors.New("is not a regular file")
	default:
		b, err := pl.fs.ReadFile(abs)
		if err != nil {
			return nil, err
		}
		f.origExists, f.orig, f.origMode = true, b, fi.Mode().Perm()
		f.exists, f.content, f.mode = true, b, f.origMode
	}
	pl.files[abs] = f
	pl.order = append(pl.order, abs)
	return f, nil
}

func (pl *Plan) hunk(fsys Files, h Hunk, idx int) error {
	fail := func(chunk, line int, format string, a ...any) error {
		return &HunkError{Op: h.Op, Path: h.Path, Chunk: chunk, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	abs, err := fsys.Resolve(h.Path)
	if err != nil {
		return fail(0, h.Line, "%v", err)
	}
	f, err := pl.load(abs, h.Path, idx)
	if err != nil {
		return fail(0, h.Line, "%s", describe(err))
	}
	switch h.Op {
	case Add:
		f.exists, f.content, f.display = true, []byte(h.Contents), h.Path
		return nil
	case Delete:
		if !f.exists {
			return fail(0, h.Line, "no such file to delete")
		}
		f.exists, f.content = false, nil
		return nil
	}
	if !f.exists {
		return fail(0, h.Line, "no such file to update; use '*** Add File:' to create it")
	}
	if isBinary(f.content) {
		return fail(0, h.Line, "binary file (not UTF-8 text); apply_patch changes text files only")
	}
	updated, cerr := applyChunks(string(f.content), h.Chunks)
	if cerr != nil {
		return fail(cerr.chunk, h.Chunks[cerr.chunk-1].Line, "%s", cerr.msg)
	}
	if h.MoveTo == "" {
		f.content = []byte(updated)
		return nil
	}
	dst, err := fsys.Resolve(h.MoveTo)
	if err != nil {
		return fail(0, h.Line, "move to %s: %v", h.MoveTo, err)
	}
	mode := f.mode
	if dst != abs {
		f.exists, f.content = false, nil
		df, err := pl.load(dst, h.MoveTo, idx)
		if err != nil {
			return fail(0, h.Line, "move to %s: %s", h.MoveTo, describe(err))
		}
		f = df // a move overwrites an existing destination
	}
	f.exists, f.content, f.mode, f.display = true, []byte(updated), mode, h.MoveTo
	return nil
}

// Changes lists what the plan does, in patch order, each path once: Add
// (it did not exist before), Update (it did; also an update that left the
// bytes as they were) or Delete.
func (pl *Plan) Changes() []Change {
	abs := slices.Clone(pl.order)
	slices.SortStableFunc(abs, func(a, b string) int { return pl.files[a].order - pl.files[b].order })
	var out []Change
	for _, a := range abs {
		f := pl.files[a]
		switch {
		case !f.exists && !f.origExists:
			// added and deleted again within the patch
		case !f.exists:
			out = append(out, Change{Op: Delete, Path: f.display, Abs: a, Old: f.orig})
		case !f.origExists:
			out = append(out, Change{Op: Add, Path: f.display, Abs: a, New: f.content})
		default:
			out = append(out, Change{Op: Update, Path: f.display, Abs: a, New: f.content, Old: f.orig})
		}
	}
	return out
}

// Commit writes the plan: each file atomically (temporary file and
// rename), deletions last. If a write fails, the files already changed
// are put back as they were, so the workspace is not left half-patched.
func (pl *Plan) Commit() error {
	var done []string
	rollback := func() {
		for _, abs := range slices.Backward(done) {
			f := pl.files[abs]
			if f.origExists {
				_ = pl.fs.WriteAtomic(abs, f.orig, f.origMode)
			} else {
				_ = pl.fs.Remove(abs)
			}
		}
	}
	for _, abs := range pl.order {
		f := pl.files[abs]
		if !f.changed() || !f.exists {
			continue
		}
		if err := pl.fs.MkdirAll(filepath.Dir(abs)); err != nil {
			rollback()
			return fmt.Errorf("%s: create its directory: %s", f.display, describe(err))
		}
		if err := pl.fs.WriteAtomic(abs, f.content, f.mode); err != nil {
			rollback()
			return fmt.Errorf("%s: write: %s", f.display, describe(err))
		}
		done = append(done, abs)
	}
	for _, abs := range pl.order {
		f := pl.files[abs]
		if !f.changed() || f.exists {
			continue
		}
		if err := pl.fs.Remove(abs); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			rollback()
			return fmt.Errorf("%s: delete: %s", f.display, describe(err))
		}
		done = append(done, abs)
	}
	return nil
}

// Apply parses nothing: it plans p against fsys and commits it.
func (p *Patch) Apply(fsys Files) ([]Change, error) {
	pl, err := p.Plan(fsys)
	if err != nil {
		return nil, err
	}
	if err := pl.Commit(); err != nil {
		return nil, err
	}
	return pl.Changes(), nil
}

// Summary is the report apply_patch prints after success, in the form
// models trained on Codex expect: "Success. Updated the following
// files:" and one "A|M|D path" line per file.
func Summary(changes []Change) string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:")
	for _, c := range changes {
		letter := "M"
		switch c.Op {
		case Add:
			letter = "A"
		case Delete:
			letter = "D"
		}
		fmt.Fprintf(&b, "\n%s %s", letter, c.Path)
	}
	return b.String()
}

// chunkError is a chunk that did not locate (chunk is 1-based).
type chunkError struct {
	chunk int
	msg   string
}

// replacement replaces n lines at index at with lines.
type replacement struct {
	at, n int
	lines []string
}

// applyChunks applies an Update hunk's chunks to content. Line endings
// are kept: a file that is mostly CRLF is matched as LF and written back
// as CRLF. The result always ends with a newline.
func applyChunks(content string, chunks []Chunk) (string, *chunkError) {
	crlf := usesCRLF(content)
	if crlf {
		content = strings.ReplaceAll(content, "\r\n", "\n")
	}
	lines := strings.Split(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var reps []replacement
	pos := 0
	for i, c := range chunks {
		if c.Context != "" {
			at := seek(lines, []string{c.Context}, pos, false)
			if at < 0 {
				return "", &chunkError{i + 1, fmt.Sprintf("context line '@@ %s' not found%s", c.Context, hint(lines, c.Context, pos))}
			}
			pos = at + 1
		}
		if len(c.Old) == 0 {
			// A pure addition goes after its context line, or at the end
			// of the file when it has none.
			at := len(lines)
			if c.Context != "" && !c.EOF {
				at = pos
			}
			reps = append(reps, replacement{at, 0, c.New})
			continue
		}
		old, repl := c.Old, c.New
		at := seek(lines, old, pos, c.EOF)
		if at < 0 && old[len(old)-1] == "" {
			// A trailing empty line often stands for the file's final
			// newline, which split lines do not carry.
			old = old[:len(old)-1]
			if len(repl) > 0 && repl[len(repl)-1] == "" {
				repl = repl[:len(repl)-1]
			}
			at = seek(lines, old, pos, c.EOF)
		}
		if at < 0 {
			where := "expected lines not found"
			if c.EOF {
				where = "expected lines not found at the end of the file"
			}
			return "", &chunkError{i + 1, fmt.Sprintf("%s:\n%s%s", where, indent(c.Old), hint(lines, firstNonBlank(c.Old), pos))}
		}
		// Context lines keep the file's text (its whitespace, its
		// punctuation) rather than the patch's approximation of it.
		repl = slices.Clone(repl)
		for k := range repl {
			if k < len(c.from) && c.from[k] >= 0 && c.from[k] < len(old) {
				repl[k] = lines[at+c.from[k]]
			}
		}
		reps = append(reps, replacement{at, len(old), repl})
		pos = at + len(old)
	}
	slices.SortStableFunc(reps, func(a, b replacement) int { return a.at - b.at })
	for _, r := range slices.Backward(reps) {
		lines = slices.Replace(lines, r.at, r.at+r.n, r.lines...)
	}
	out := strings.Join(lines, "\n") + "\n"
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return out, nil
}

// usesCRLF reports whether most line ends of s are CRLF.
func usesCRLF(s string) bool {
	crlf := strings.Count(s, "\r\n")
	lf := strings.Count(s, "\n") - crlf
	return crlf > 0 && crlf >= lf
}

// seek finds pattern in lines at or after start and returns its index,
// or -1. Passes go from strict to lenient: exact, trailing whitespace
// ignored, surrounding whitespace ignored, then Unicode punctuation
// (dashes, quotes, odd spaces) read as ASCII. With eof the pattern must
// end at the last line.
func seek(lines, pattern []string, start int, eof bool) int {
	if len(pattern) == 0 {
		return start
	}
	if len(pattern) > len(lines) {
		return -1
	}
	from, to := start, len(lines)-len(pattern)
	if eof {
		if to < start {
			return -1
		}
		from = to
	}
	for _, eq := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool { return strings.TrimRight(a, " \t\r\v\f") == strings.TrimRight(b, " \t\r\v\f") },
		func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) },
		func(a, b string) bool { return normalise(a) == normalise(b) },
	} {
	next:
		for i := from; i <= to; i++ {
			for j, p := range pattern {
				if !eq(lines[i+j], p) {
					continue next
				}
			}
			return i
		}
	}
	return -1
}

// normalise trims s and maps typographic punctuation to ASCII, so a patch
// written with "-" and '"' matches a file with "–" and "“".
func normalise(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
}

// hint says where the first expected line does occur, if it does.
func hint(lines []string, want string, from int) string {
	want = normalise(want)
	if want == "" {
		return ""
	}
	for i, l := range lines {
		if normalise(l) == want {
			if i < from {
				return fmt.Sprintf("\n(the line '%s' occurs at line %d, before the previous hunk's position; hunks must follow the file's order)", strings.TrimSpace(l), i+1)
			}
			return fmt.Sprintf("\n(the line '%s' occurs at line %d, but the lines around it differ; re-read the file and copy the context exactly)", strings.TrimSpace(l), i+1)
		}
	}
	return "\n(re-read the file and copy the context lines exactly)"
}

func firstNonBlank(lines []string) string {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

func indent(lines []string) string {
	const max = 12
	var b strings.Builder
	for i, l := range lines {
		if i == max {
			fmt.Fprintf(&b, "  … (%d more)\n", len(lines)-max)
			break
		}
		b.WriteString("  " + l + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// isBinary reports whether b holds a NUL byte or invalid UTF-8.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}

// describe shortens the common file-system errors.
func describe(err error) string {
	var pe *iofs.PathError
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, iofs.ErrPermission):
		return "permission denied"
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}
