package patch

import (
	"fmt"
	"strings"
)

// Markers of the patch format.
const (
	beginMarker   = "*** Begin Patch"
	endMarker     = "*** End Patch"
	addMarker     = "*** Add File: "
	deleteMarker  = "*** Delete File: "
	updateMarker  = "*** Update File: "
	moveMarker    = "*** Move to: "
	eofMarker     = "*** End of File"
	contextMarker = "@@ "
	bareContext   = "@@"
)

// Op is what a hunk does to its file.
type Op int

const (
	Add    Op = iota // create (or overwrite) a file with Contents
	Delete           // remove a file
	Update           // change a file by Chunks, optionally moving it
)

func (o Op) String() string {
	switch o {
	case Add:
		return "Add File"
	case Delete:
		return "Delete File"
	}
	return "Update File"
}

// Hunk is the change to one file.
type Hunk struct {
	Op       Op
	Path     string  // as written in the patch
	MoveTo   string  // Update only: the new path, "" = stays
	Contents string  // Add only: the new file, every line ending in "\n"
	Chunks   []Chunk // Update only
	Line     int     // 1-based line of the hunk header in the patch text
}

// Chunk is one located replacement inside an Update hunk: Old lines are
// found in the file (after Context, when given) and replaced by New.
type Chunk struct {
	Context string // the "@@ <context>" line to find first; "" = none
	Old     []string
	New     []string
	EOF     bool // Old must end at the end of the file ("*** End of File")
	Line    int  // 1-based line of the chunk's first line in the patch text
	// from maps each New line to the Old line it repeats (a context
	// line), or -1 for an added line, so context keeps the file's bytes.
	from []int
}

// Patch is a parsed patch: its hunks in order.
type Patch struct {
	Hunks []Hunk
}

// ParseError is a patch that does not follow the format. Line is the
// 1-based line of the patch text at fault (0 for the patch as a whole).
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return "invalid patch: " + e.Msg
	}
	return fmt.Sprintf("invalid patch: line %d: %s", e.Line, e.Msg)
}

// Parse reads a patch leniently: surrounding whitespace, markers padded
// with spaces, CRLF line ends, a heredoc wrapper (<<EOF, <<'EOF', <<"EOF"
// … EOF, optionally preceded by "apply_patch") are all accepted.
func Parse(text string) (*Patch, error) {
	lines := splitLines(strings.TrimSpace(text))
	offset := 0 // lines dropped from the front, for line numbers
	body, err := boundaries(lines)
	if err != nil {
		if inner, ok := unwrapHeredoc(lines); ok {
			body, err = boundaries(inner)
			offset = 1
		}
	}
	if err != nil {
		return nil, err
	}
	p := &Patch{}
	line := offset + 2 // body starts after "*** Begin Patch"
	for len(body) > 0 {
		h, n, err := parseHunk(body, line)
		if err != nil {
			return nil, err
		}
		p.Hunks = append(p.Hunks, h)
		body, line = body[n:], line+n
	}
	return p, nil
}

// splitLines splits on "\n" and drops a "\r" before it, so a patch written
// with CRLF reads the same as one with LF.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// boundaries checks the begin and end markers and returns the lines
// between them.
func boundaries(lines []string) ([]string, error) {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != beginMarker {
		return nil, &ParseError{Msg: "the first line of the patch must be '*** Begin Patch'"}
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != endMarker {
		return nil, &ParseError{Msg: "the last line of the patch must be '*** End Patch'"}
	}
	return lines[1 : len(lines)-1], nil
}

// unwrapHeredoc strips a shell heredoc around the patch: a first line
// "<<EOF", "<<'EOF'" or "<<\"EOF\"" (optionally after "apply_patch" or
// "applypatch") and a last line ending in the same delimiter.
func unwrapHeredoc(lines []string) ([]string, bool) {
	if len(lines) < 4 {
		return nil, false
	}
	first := strings.TrimSpace(lines[0])
	for _, cmd := range []string{"apply_patch", "applypatch"} {
		if rest, ok := strings.CutPrefix(first, cmd); ok && strings.HasPrefix(strings.TrimSpace(rest), "<<") {
			first = strings.TrimSpace(rest)
		}
	}
	rest, ok := strings.CutPrefix(first, "<<")
	if !ok {
		return nil, false
	}
	rest = strings.TrimPrefix(strings.TrimSpace(rest), "-")
	delim := rest
	if n := len(rest); n >= 2 && (rest[0] == '\'' || rest[0] == '"') {
		if rest[n-1] != rest[0] {
			return nil, false
		}
		delim = rest[1 : n-1]
	}
	if delim == "" || strings.ContainsAny(delim, " \t'\"") {
		return nil, false
	}
	if !strings.HasSuffix(strings.TrimSpace(lines[len(lines)-1]), delim) {
		return nil, false
	}
	return lines[1 : len(lines)-1], true
}

// parseHunk reads one file hunk from the start of lines (line is the
// patch line of lines[0]) and returns it with the number of lines used.
func parseHunk(lines []string, line int) (Hunk, int, error) {
	header := strings.TrimSpace(lines[0])
	if path, ok := strings.CutPrefix(header, addMarker); ok {
		h := Hunk{Op: Add, Path: strings.TrimSpace(path), Line: line}
		if h.Path == "" {
			return h, 0, &ParseError{Line: line, Msg: "Add File needs a path"}
		}
		var b strings.Builder
		n := 1
		for _, l := range lines[1:] {
			text, ok := strings.CutPrefix(l, "+")
			if !ok {
				break
			}
			b.WriteString(text)
			b.WriteByte('\n')
			n++
		}
		h.Contents = b.String()
		return h, n, nil
	}
	if path, ok := strings.CutPrefix(header, deleteMarker); ok {
		h := Hunk{Op: Delete, Path: strings.TrimSpace(path), Line: line}
		if h.Path == "" {
			return h, 0, &ParseError{Line: line, Msg: "Delete File needs a path"}
		}
		return h, 1, nil
	}
	path, ok := strings.CutPrefix(header, updateMarker)
	if !ok {
		return Hunk{}, 0, &ParseError{Line: line, Msg: fmt.Sprintf("'%s' is not a valid hunk header; valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'", header)}
	}
	h := Hunk{Op: Update, Path: strings.TrimSpace(path), Line: line}
	if h.Path == "" {
		return h, 0, &ParseError{Line: line, Msg: "Update File needs a path"}
	}
	n := 1
	if len(lines) > 1 {
		if to, ok := strings.CutPrefix(strings.TrimSpace(lines[1]), moveMarker); ok {
			h.MoveTo = strings.TrimSpace(to)
			if h.MoveTo == "" {
				return h, 0, &ParseError{Line: line + 1, Msg: "Move to needs a path"}
			}
			n++
		}
	}
	for n < len(lines) {
		l := lines[n]
		if strings.TrimSpace(l) == "" {
			n++ // blank lines may separate chunks
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "***") {
			break // the next hunk's header
		}
		c, used, err := parseChunk(lines[n:], line+n, len(h.Chunks) == 0)
		if err != nil {
			return h, 0, err
		}
		h.Chunks = append(h.Chunks, c)
		n += used
	}
	if len(h.Chunks) == 0 && h.MoveTo == "" {
		return h, 0, &ParseError{Line: line, Msg: fmt.Sprintf("Update File hunk for path '%s' is empty", h.Path)}
	}
	return h, n, nil
}

// parseChunk reads one chunk: an optional "@@" line, then lines that
// start with ' ', '-' or '+' (an empty line counts as empty context), up
// to the next "@@", the next hunk or "*** End of File".
func parseChunk(lines []string, line int, first bool) (Chunk, int, error) {
	c := Chunk{Line: line}
	start := 0
	switch head := strings.TrimRight(lines[0], " \t"); {
	case head == bareContext:
		start = 1
	case strings.HasPrefix(head, contextMarker):
		c.Context, start = strings.TrimPrefix(head, contextMarker), 1
	case !first:
		return c, 0, &ParseError{Line: line, Msg: fmt.Sprintf("expected a chunk to start with an @@ context marker, got: '%s'", lines[0])}
	}
	n := start
	for ; n < len(lines); n++ {
		l := lines[n]
		if strings.TrimSpace(l) == eofMarker {
			if n == start {
				return c, 0, &ParseError{Line: line + n, Msg: "chunk has no lines before '*** End of File'"}
			}
			c.EOF = true
			n++
			break
		}
		if l == "" {
			c.context("")
			continue
		}
		switch l[0] {
		case ' ':
			c.context(l[1:])
			continue
		case '-':
			c.Old = append(c.Old, l[1:])
			continue
		case '+':
			c.New, c.from = append(c.New, l[1:]), append(c.from, -1)
			continue
		}
		if n == start {
			return c, 0, &ParseError{Line: line + n, Msg: fmt.Sprintf("unexpected line in update hunk: '%s'; every line must start with ' ' (context), '+' (added) or '-' (removed)", l)}
		}
		break // "@@" of the next chunk, or the next hunk
	}
	if n == start {
		return c, 0, &ParseError{Line: line, Msg: "chunk has no lines"}
	}
	// Trailing blank lines were separators, not context.
	for len(c.Old) > 0 && len(c.New) > 0 && c.Old[len(c.Old)-1] == "" && c.New[len(c.New)-1] == "" && n > start && lines[n-1] == "" {
		c.Old, c.New, c.from = c.Old[:len(c.Old)-1], c.New[:len(c.New)-1], c.from[:len(c.from)-1]
		n--
	}
	return c, n, nil
}

// context adds a line found in both the old and the new text.
func (c *Chunk) context(l string) {
	c.from = append(c.from, len(c.Old))
	c.Old, c.New = append(c.Old, l), append(c.New, l)
}
