package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"encoding/json"
	"golang.org/x/sys/unix"
)

// Listing is one session as pickers and `sessions list` show it.
type Listing struct {
	ID string
	// Title is the session-title sidecar ("" when there is none; callers
	// then show FirstPrompt).
	Title string
	// FirstPrompt is the text of the first user item among the first 50
	// lines after the header ("" if none or unreadable).
	FirstPrompt string
	// UpdatedAt is the session file's mtime; HasTime is false when it
	// cannot be stat-ed (no file yet, or a legacy layout).
	UpdatedAt time.Time
	HasTime   bool
}

// List returns every session directory under <root>/sessions, most
// recently active first; sessions without a readable file come last. It
// reads only the head of each file and takes no locks.
func (s *Store) List() ([]Listing, error) {
	entries, err := os.ReadDir(filepath.Join(s.root, "sessions"))
	if errors.Is(err, fs.ErrNotExist) {
		return []Listing{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out := make([]Listing, 0, len(entries))
	for _, e := range entries {
		id := e.Name()
		if !e.IsDir() || ValidateID(id) != nil {
			continue
		}
		l := Listing{ID: id}
		if st, err := os.Stat(s.Path(id)); err == nil {
			l.UpdatedAt, l.HasTime = st.ModTime(), true
			l.FirstPrompt = firstPrompt(s.Path(id))
		}
		if b, err := os.ReadFile(filepath.Join(s.Dir(id), titleName)); err == nil {
			l.Title = strings.TrimSpace(string(b))
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b Listing) int {
		switch {
		case a.HasTime != b.HasTime:
			if a.HasTime {
				return -1
			}
			return 1
		case !a.UpdatedAt.Equal(b.UpdatedAt):
			return b.UpdatedAt.Compare(a.UpdatedAt)
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// Latest is the most recently active session that loads; broken ones are
// skipped. It fails when there is none.
func (s *Store) Latest() (string, error) {
	ls, err := s.List()
	if err != nil {
		return "", err
	}
	for _, l := range ls {
		if !l.HasTime {
			continue
		}
		if _, err := s.Load(l.ID); err == nil {
			return l.ID, nil
		}
	}
	return "", fmt.Errorf("no session to resume under %s", filepath.Join(s.root, "sessions"))
}

type wirePromptLine struct {
	Item *struct {
		Kind    string `json:"kind"`
		Payload *struct {
			Content json.RawMessage `json:"content"`
		} `json:"payload"`
	} `json:"item"`
}

// firstPrompt streams the first lines of a session file for the first
// user item's text, without loading the whole file.
func firstPrompt(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	r := bufio.NewReader(f)
	if _, err := readLine(r); err != nil { // header
		return ""
	}
	for range firstPromptLines {
		line, err := readLine(r)
		if len(line) > 0 {
			var w wirePromptLine
			if json.Unmarshal(line, &w) == nil && w.Item != nil && w.Item.Kind == KindUser && w.Item.Payload != nil {
				if c, err := decodeContent(w.Item.Payload.Content); err == nil {
					return c.Text()
				}
			}
		}
		if err != nil {
			return ""
		}
	}
	return ""
}

// readLine reads one line of any length, without its newline.
func readLine(r *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		if long != nil {
			chunk = append(long, chunk...)
		}
		chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
		if err == io.EOF && len(chunk) > 0 {
			err = nil
		}
		return chunk, err
	}
}

// SetTitle records the display title of an existing session in its
// session-title sidecar, atomically and under the exclusive session lock.
func (s *Store) SetTitle(id, title string) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("session title must not be blank")
	}
	if !s.Exists(id) {
		return &notExistError{id}
	}
	lk, err := lockSession(s.Dir(id), unix.LOCK_EX)
	if err != nil {
		return fmt.Errorf("set title of session %s: %w", id, err)
	}
	defer unlock(lk)
	if err := writeAtomic(filepath.Join(s.Dir(id), titleName), []byte(title), s.dirChain(id)...); err != nil {
		return fmt.Errorf("set title of session %s: %w", id, err)
	}
	return nil
}
