package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Hit is one event of a session whose text holds a searched string.
type Hit struct {
	Session string `json:"session"`
	// UpdatedAtMS is the session file's modification time (unix ms).
	UpdatedAtMS int64 `json:"updated_at_ms"`
	// Turn is the number of the turn holding the event (Session.Turns),
	// 0 for an event before the first prompt.
	Turn int `json:"turn"`
	// Sequence, TS and Kind are the matching event's.
	Sequence int    `json:"sequence"`
	TS       int64  `json:"ts"`
	Kind     string `json:"kind"`
	// Excerpt is the text around the first match in the event, on one
	// line ("…" where it was cut); Match is the byte range of the match
	// in Excerpt.
	Excerpt string `json:"excerpt"`
	Match   [2]int `json:"match"`
}

// excerptContext is how many bytes of text an excerpt shows on each side
// of the match.
const excerptContext = 60

// Search finds query, case-insensitively, in the text of every session
// under the store (prompts, answers, tool calls' arguments, tool results
// and summaries; not the system prompt, reasoning or runtime notices), and
// returns one hit per matching event, the most recently active session
// first and each session's hits in log order; at most perSession hits a
// session when perSession > 0. Sessions that do not load are passed over
// and reported in skipped. A file is read once; a file whose raw bytes do
// not hold the query is not decoded, which keeps a search over a thousand
// sessions to the cost of reading them.
func (s *Store) Search(ctx context.Context, query string, perSession int) (hits []Hit, skipped []error, err error) {
	if strings.TrimSpace(query) == "" {
		return nil, nil, errors.New("search for what? the text must not be blank")
	}
	re := regexp.MustCompile("(?i)" + regexp.QuoteMeta(query))
	// The raw bytes can be checked first when the query reads the same
	// inside a JSON string as outside (no escaped or non-ASCII byte).
	var raw []byte
	if rawSafe(query) {
		raw = []byte(strings.ToLower(query))
	}
	ls, err := s.List()
	if err != nil {
		return nil, nil, err
	}
	var data, lower []byte
	for _, l := range ls {
		if err := ctx.Err(); err != nil {
			return hits, skipped, err
		}
		if !l.HasTime {
			continue
		}
		data, err = readInto(s.Path(l.ID), data[:0])
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since it was listed
		}
		if err != nil {
			skipped = append(skipped, fmt.Errorf("search session %s: %w", l.ID, err))
			continue
		}
		if raw != nil {
			_, events, _ := bytes.Cut(data, []byte{'\n'})
			lower = asciiLower(lower[:0], events)
			if !bytes.Contains(lower, raw) {
				continue
			}
		}
		sess, err := parseFile(l.ID, data)
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		hits = append(hits, searchSession(sess, re, l.UpdatedAt.UnixMilli(), perSession)...)
	}
	return hits, skipped, nil
}

func searchSession(sess *Session, re *regexp.Regexp, updated int64, perSession int) []Hit {
	var hits []Hit
	turns := sess.Turns()
	turn := 0
	for _, e := range sess.Events {
		for turn < len(turns) && turns[turn].Sequence <= e.Sequence {
			turn++
		}
		text := searchText(e.Item)
		loc := re.FindStringIndex(text)
		if loc == nil {
			continue
		}
		excerpt, match := excerptAround(text, loc[0], loc[1])
		hits = append(hits, Hit{
			Session: sess.ID, UpdatedAtMS: updated, Turn: turn,
			Sequence: e.Sequence, TS: e.TS, Kind: e.Item.ItemKind(),
			Excerpt: excerpt, Match: match,
		})
		if perSession > 0 && len(hits) == perSession {
			break
		}
	}
	return hits
}

// searchText is the text of an item that a search looks at.
func searchText(it Item) string {
	switch it := it.(type) {
	case *User:
		return it.Content.Text()
	case *Assistant:
		if it.IsReplay {
			return ""
		}
		if len(it.ToolCalls) == 0 {
			return it.Content
		}
		var b strings.Builder
		b.WriteString(it.Content)
		for _, c := range it.ToolCalls {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(c.Name + " " + c.Arguments)
		}
		return b.String()
	case *ToolResult:
		return it.Content.Text()
	case *Summary:
		return it.Content
	}
	return ""
}

// excerptAround cuts text to the match and excerptContext bytes each
// side (on rune boundaries), puts every line on one, and returns the
// match's range in the excerpt.
func excerptAround(text string, start, end int) (string, [2]int) {
	from := max(start-excerptContext, 0)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	to := min(end+excerptContext, len(text))
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	offset := b.Len() - from
	for _, r := range text[from:to] {
		if r == '\n' || r == '\r' || r == '\t' {
			r = ' ' // one byte for one byte: the offsets hold
		}
		b.WriteRune(r)
	}
	if to < len(text) {
		b.WriteString("…")
	}
	return b.String(), [2]int{start + offset, end + offset}
}

// rawSafe reports whether q is printable ASCII that a session file writes
// as is inside a JSON string.
func rawSafe(q string) bool {
	for i := 0; i < len(q); i++ {
		if c := q[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// asciiLower appends src to dst with ASCII letters lowered.
func asciiLower(dst, src []byte) []byte {
	n := len(dst)
	dst = append(dst, src...)
	for i, c := range dst[n:] {
		if 'A' <= c && c <= 'Z' {
			dst[n+i] = c + 'a' - 'A'
		}
	}
	return dst
}

// readInto reads the file at path into buf, reusing its storage.
func readInto(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	return readAll(f, buf)
}
