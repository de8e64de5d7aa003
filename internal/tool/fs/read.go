package fs

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/openseek/openseek/internal/tool"
)

// Output budget of read, in UTF-16 code units including gutters.
const (
	DefaultMaxOutputChars = 12000
	MaxOutputChars        = 50000
)

type readArgs struct {
	Path           string `json:"path" jsonschema:"file or directory"`
	StartLine      int    `json:"start_line,omitempty" jsonschema:"1-based first line (default 1)"`
	MaxLines       int    `json:"max_lines,omitempty" jsonschema:"default: to the end"`
	MaxOutputChars int    `json:"max_output_chars,omitempty" jsonschema:"default 12000, max 50000"`
}

const readDescription = "Read a text file as `<n>\\t<line>` lines, then a footer " +
	"`<system>start_line= shown_lines= total_lines= truncated=</system>`. " +
	"If truncated, read on from start_line+shown_lines. A directory lists its entries (subdirectories end in /)."

// Read is the read tool.
func Read() tool.Tool {
	return tool.Func("read", readDescription, runRead)
}

func runRead(ctx context.Context, env *tool.Env, a readArgs) tool.Result {
	brief := "read " + filepath.Base(a.Path)
	fail := func(real, msg string) tool.Result {
		return with(tool.Errorf("error reading %s: %s", a.Path, msg), brief, data{Outcome: "error", Path: relPath(env, real, a.Path)})
	}
	if err := ctx.Err(); err != nil {
		return fail("", err.Error())
	}
	real, err := env.Resolve(a.Path)
	if err != nil {
		return fail("", err.Error())
	}
	if err := env.CheckRead(ctx, "read", real); err != nil {
		return fail(real, err.Error())
	}
	budget := a.MaxOutputChars
	if budget <= 0 {
		budget = DefaultMaxOutputChars
	}
	budget = min(budget, MaxOutputChars)
	start := max(a.StartLine, 1)

	f, err := safeOpen(env, real)
	if err != nil {
		msg := describeErr(err)
		if errors.Is(err, iofs.ErrNotExist) {
			if s := suggest(env, real); s != "" {
				msg += ". Did you mean " + s + "?"
			}
		}
		return fail(real, msg)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fail(real, describeErr(err))
	}
	if fi.IsDir() {
		return readDir(f, env, real, a.Path, budget)
	}
	var src io.Reader = f
	if text, ok := env.EditorText(ctx, real); ok {
		src = strings.NewReader(text) // the editor's buffer, unsaved edits included
	}
	out, err := readLines(ctx, src, start, a.MaxLines, budget)
	if err != nil {
		return fail(real, err.Error())
	}
	res := tool.TextResult(out.text)
	res.IsError = out.truncated
	rel := env.Rel(real)
	res.Read = &tool.ReadMark{Path: rel, Key: fmt.Sprintf("%s\x00%d\x00%d\x00%d", rel, start, max(a.MaxLines, 0), budget), Sum: sha256.Sum256([]byte(out.text))}
	return with(res, brief, data{Outcome: "read", Path: rel, Lines: out.lines})
}

// readOut is the rendered body+footer of a file read.
type readOut struct {
	text      string
	truncated bool
	lines     *lines
}

// errBinary refuses files that are not text.
var errBinary = errors.New("binary file (not UTF-8 text); read shows text files only")

// readLines streams r, keeping only the lines it shows, so a huge file
// costs its reading time but not its size in memory.
func readLines(ctx context.Context, r io.Reader, start, maxLines, budget int) (readOut, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return readOut{}, err
	}
	if len(head) == 0 {
		return readOut{text: fmt.Sprintf("<system>start_line=%d shown_lines=0 total_lines=0 truncated=false note=empty file</system>", start)}, nil
	}
	if isBinary(head, len(head) < sniffLen) {
		return readOut{}, errBinary
	}

	var (
		body      strings.Builder
		used      int // UTF-16 units in body
		shown     int
		truncated bool
		cur       []byte // the line being collected, when it is shown
		cut       bool   // cur reached its cap
		lineNo    = 1
	)
	// A shown line never needs more bytes than this to fill the budget.
	lineCap := 3*budget + 8
	showing := func() bool {
		return !truncated && lineNo >= start && (maxLines <= 0 || lineNo < start+maxLines)
	}
	emit := func() {
		line := strings.TrimSuffix(string(cur), "\r")
		gutter := strconv.Itoa(lineNo) + "\t"
		cost := len(gutter) + utf16Len(line)
		if shown > 0 {
			cost++
		}
		if used+cost > budget || cut {
			truncated = true
			if shown > 0 {
				return
			}
			// The first line alone is over budget: show as much as fits so
			// the model sees something.
			line = clipUTF16(line, budget-len(gutter))
			cost = len(gutter) + utf16Len(line)
		}
		if shown > 0 {
			body.WriteByte('\n')
		}
		body.WriteString(gutter)
		body.WriteString(line)
		used += cost
		shown++
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if showing() && !cut {
			cur = append(cur, chunk...)
			if len(cur) > lineCap {
				cur, cut = cur[:lineCap], true
			}
		}
		ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if ended || errors.Is(err, io.EOF) {
			if showing() {
				cur = []byte(strings.TrimSuffix(string(cur), "\n"))
				emit()
			}
			cur, cut = cur[:0], false
			if !ended {
				break
			}
			lineNo++
			if lineNo%4096 == 0 && ctx.Err() != nil {
				return readOut{}, ctx.Err()
			}
			continue
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return readOut{}, err
		}
	}
	footer := fmt.Sprintf("<system>start_line=%d shown_lines=%d total_lines=%d truncated=%t</system>", start, shown, lineNo, truncated)
	out := readOut{truncated: truncated}
	if shown == 0 {
		out.text = footer
		return out, nil
	}
	out.text = body.String() + "\n" + footer
	out.lines = &lines{Start: start, End: start + shown - 1}
	return out, nil
}

// readDir lists a directory: one entry a line, sorted by name,
// directories ending in "/".
func readDir(f *os.File, env *tool.Env, real, given string, budget int) tool.Result {
	brief := "read " + filepath.Base(given) + "/"
	entries, err := f.ReadDir(-1)
	if err != nil {
		return with(tool.Errorf("error reading %s: %s", given, describeErr(err)), brief, data{Outcome: "error", Path: env.Rel(real)})
	}
	slices.SortFunc(entries, func(a, b iofs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
		if e.IsDir() {
			names[i] += "/"
		}
	}
	var b strings.Builder
	used, shown := 0, 0
	for _, n := range names {
		cost := utf16Len(n) + 1
		if used+cost > budget {
			break
		}
		b.WriteString(n)
		b.WriteByte('\n')
		used += cost
		shown++
	}
	truncated := shown < len(names)
	b.WriteString(fmt.Sprintf("<system>directory entries=%d shown_entries=%d truncated=%t</system>", len(names), shown, truncated))
	res := tool.TextResult(b.String())
	res.IsError = truncated
	return with(res, brief, data{Outcome: "listed", Path: env.Rel(real)})
}

// utf16Len counts s in UTF-16 code units, the unit of max_output_chars.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// clipUTF16 returns the longest prefix of s within limit UTF-16 units,
// cut at a character boundary.
func clipUTF16(s string, limit int) string {
	n := 0
	for i, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if n+w > limit {
			return s[:i]
		}
		n += w
	}
	return s
}
