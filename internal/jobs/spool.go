package jobs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// indexStep is how many characters lie between two entries of a spool's
// character index; a window read decodes at most this many characters
// before reaching its start.
const indexStep = 4096

// memMax bounds the output a spool keeps in memory once its file cannot
// be written (a full disk): enough for the command's own error message,
// which is what a person needs to see then.
const memMax = 256 << 10

// readBuffer is the largest buffer a window read uses.
const readBuffer = 64 << 10

// spool is the append-only file a command's merged output goes to, with
// running counts of bytes and characters. Characters are Unicode scalar
// values; every byte that is not part of valid UTF-8 counts as one
// character and reads back as U+FFFD. Only whole characters are visible to
// readers: a rune split across two writes is counted when it completes.
type spool struct {
	mu         sync.Mutex
	f          *os.File // nil once finished
	path       string
	max        int64 // bytes kept; later output is dropped
	bytes      int64 // bytes of output kept: the file's, then mem's
	fileBytes  int64 // bytes in the file; the rest are in mem
	mem        []byte
	counted    int64 // bytes whose characters are counted (rune boundary)
	chars      int64
	pending    []byte // an incomplete trailing rune, at most 3 bytes
	invalid    bool
	dropped    bool // output arrived after the cap and was discarded
	lastOutput time.Time
	err        error   // first write error
	index      []int64 // index[k] is the byte offset of character k*indexStep
}

// newSpool takes over f, a freshly created empty file.
func newSpool(f *os.File, max int64) *spool {
	return &spool{f: f, path: f.Name(), max: max, index: []int64{0}}
}

// write appends p, up to the cap. It reports whether this write reached
// the cap, so the caller can stop the producer.
func (s *spool) write(p []byte, now time.Time) (capReached bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(p) == 0 || s.f == nil {
		return false
	}
	s.lastOutput = now
	if room := s.max - s.bytes; int64(len(p)) > room {
		p = p[:max(room, 0)]
		capReached = !s.dropped
		s.dropped = true
	}
	if len(p) == 0 {
		return capReached
	}
	kept := p
	rest := p
	if s.err == nil {
		n, err := s.f.Write(p)
		s.fileBytes += int64(n)
		rest = p[n:]
		if err != nil {
			// Keep the rest in memory: on a full disk the command's own
			// "No space left on device" must still reach its result.
			s.err = err
		}
	}
	if s.err != nil && len(rest) > 0 {
		if room := memMax - int64(len(s.mem)); int64(len(rest)) > room {
			kept = kept[:len(kept)-len(rest)+int(max(room, 0))]
			rest = rest[:max(room, 0)]
			s.dropped = true
		}
		s.mem = append(s.mem, rest...)
	}
	s.bytes = s.fileBytes + int64(len(s.mem))
	s.count(kept)
	return capReached
}

// count advances the character counters over p (which follows s.pending).
func (s *spool) count(p []byte) {
	data := p
	if len(s.pending) > 0 {
		data = append(s.pending, p...)
		s.pending = nil
	}
	i := 0
	for i < len(data) {
		if s.chars == int64(len(s.index))*indexStep {
			s.index = append(s.index, s.counted)
		}
		if c := data[i]; c < utf8.RuneSelf {
			s.chars++
			s.counted++
			i++
			continue
		}
		if !utf8.FullRune(data[i:]) {
			s.pending = append([]byte(nil), data[i:]...)
			return
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			s.invalid = true
		}
		s.chars++
		s.counted += int64(size)
		i += size
	}
}

// finish closes the file; an incomplete trailing rune counts as invalid.
func (s *spool) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return
	}
	if n := len(s.pending); n > 0 {
		s.pending = nil
		for range n {
			if s.chars == int64(len(s.index))*indexStep {
				s.index = append(s.index, s.counted)
			}
			s.chars++
			s.counted++
		}
		s.invalid = true
	}
	if err := s.f.Close(); err != nil && s.err == nil {
		s.err = err
	}
	s.f = nil
}

// rename moves the spool file; the open handle keeps working.
func (s *spool) rename(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Rename(s.path, path); err != nil {
		return fmt.Errorf("rename output spool: %w", err)
	}
	s.path = path
	return nil
}

// remove deletes the spool file (a foreground command's spool, once read).
func (s *spool) remove() error {
	s.finish()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove output spool: %w", err)
	}
	return nil
}

// spoolStats is a consistent snapshot of a spool's counters.
type spoolStats struct {
	Path       string
	Bytes      int64
	Chars      int64
	Invalid    bool
	Dropped    bool
	LastOutput time.Time
	Err        error
}

func (s *spool) stats() spoolStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return spoolStats{
		Path: s.path, Bytes: s.bytes, Chars: s.chars, Invalid: s.invalid,
		Dropped: s.dropped, LastOutput: s.lastOutput, Err: s.err,
	}
}

// read returns the characters [start, start+n) of the output written so
// far (fewer at the end), decoding invalid bytes as U+FFFD.
func (s *spool) read(start, n int64) (string, error) {
	s.mu.Lock()
	path, counted, chars, fileBytes, mem := s.path, s.counted, s.chars, s.fileBytes, s.mem
	start = min(max(start, 0), chars)
	n = min(max(n, 0), chars-start)
	k := start / indexStep
	off, pos := s.index[k], k*indexStep
	s.mu.Unlock()
	if n == 0 {
		return "", nil
	}
	// The file holds [0, fileBytes); what its writes could not take is in
	// mem, which only grows, so the slice taken here stays valid.
	memPart := mem[min(max(off-fileBytes, 0), int64(len(mem))):max(counted-fileBytes, 0)]
	var src io.Reader = bytes.NewReader(memPart)
	size := int64(len(memPart))
	if off < fileBytes {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("read job output: %w", err)
		}
		defer f.Close()
		src = io.MultiReader(io.NewSectionReader(f, off, min(counted, fileBytes)-off), src)
		size += min(counted, fileBytes) - off
	}
	// The buffer is no larger than what there is to read: most commands
	// print a few lines, and a 64 KB buffer per tool result was most of
	// what a session's steps allocated (and so of its peak memory).
	r := bufio.NewReaderSize(src, int(min(size, readBuffer)))
	for ; pos < start; pos++ {
		if _, _, err := r.ReadRune(); err != nil {
			return "", fmt.Errorf("read job output: %w", err)
		}
	}
	var b strings.Builder
	for range n {
		c, _, err := r.ReadRune()
		if err != nil {
			return "", fmt.Errorf("read job output: %w", err)
		}
		b.WriteRune(c)
	}
	return b.String(), nil
}
