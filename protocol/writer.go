package protocol

import (
	"fmt"
	"io"
	"sync"
)

// maxKeptBuffer bounds the scratch buffer a Writer keeps between events, so
// one huge event (an image steer) does not pin its memory forever.
const maxKeptBuffer = 64 << 10

// Writer writes events to one stream as JSONL: each Emit writes one whole
// `\n`-terminated line with a single Write call, under a mutex, so lines of
// concurrent emitters never interleave and appear in call order. After
// Close, events are dropped silently, like the engine's closed sink.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	closed bool
}

// NewWriter returns a Writer on w (typically os.Stdout).
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Emit writes e as one line. It returns the underlying write error, if any;
// after Close it does nothing and returns nil.
func (w *Writer) Emit(e Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.buf = append(AppendEvent(w.buf[:0], e), '\n')
	_, err := w.w.Write(w.buf)
	if cap(w.buf) > maxKeptBuffer {
		w.buf = nil
	}
	if err != nil {
		return fmt.Errorf("emit %s: %w", e.EventName(), err)
	}
	return nil
}

// Close stops the writer: later events are dropped. It does not close the
// underlying stream, which the caller owns.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return nil
}
