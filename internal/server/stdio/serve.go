// Package stdio serves the OpenSeek wire protocol over a pair of streams:
// JSONL commands in (stdin), JSONL events out (stdout). It is what
// `openseek serve` runs and what interactive frontends spawn. It is a
// transport over one session engine (engine.Session) and nothing more.
//
// Behaviour (reference/openseek-protocol.md §4.4): a line that does not
// parse gets command_error and serving goes on; prompts run one turn at a
// time, in order; a steer while idle is answered with steer_dropped;
// cancel while idle is a no-op; at end of input the queued turns finish
// and Serve returns nil. Events are read from the session's stream, so a
// stdout that cannot keep up never stalls the turn (it gets stream_reset
// if it falls out of the session's in-memory window).
package stdio

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/server/lineio"
	"github.com/openseek/openseek/protocol"
)

// MaxLine is the longest command line accepted (images travel inline).
const MaxLine = 16 << 20

// Serve reads commands from in until EOF or ctx ends, applying them to s,
// and writes s's events (from its first one still in memory) to out. At
// EOF the queued work finishes first; when ctx ends (SIGINT, SIGTERM) the
// running and queued turns are cancelled and Serve returns once their
// last events are written. A line longer than MaxLine is skipped with a
// command_error.
func Serve(ctx context.Context, s *engine.Session, in io.Reader, out io.Writer) error {
	w := &lineWriter{w: out}
	f := s.Follow(0, w.entry)
	// The reader runs apart so that a signal is noticed while stdin is
	// quiet; it ends with the process when stdin never closes.
	lines := make(chan []byte)
	done := make(chan error, 1)
	go func() { done <- readLines(in, lines, w) }()
	var err error
loop:
	for {
		select {
		case <-ctx.Done():
			s.CancelAll()
			break loop
		case line := <-lines:
			handle(s, line, w)
		case err = <-done:
			break loop
		}
	}
	s.Drain()
	_ = f.CatchUp(context.Background()) // fails only as Stop reports
	if ferr := f.Stop(); ferr != nil {
		return ferr
	}
	return err
}

// handle applies one command line; a refusal is a command_error.
func handle(s *engine.Session, line []byte, w *lineWriter) {
	cmd, err := protocol.ParseCommand(line)
	if err == nil {
		err = s.Apply(cmd)
	}
	if err != nil {
		w.event(protocol.CommandError{Error: err.Error()})
	}
}

// lineWriter writes whole lines to the client under a lock, so event
// lines and command errors never interleave.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (l *lineWriter) entry(e engine.Entry) error { return l.write(e.Line) }

func (l *lineWriter) event(e protocol.Event) { _ = l.write(protocol.Emit(e)) }

func (l *lineWriter) write(line []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(append(l.buf[:0], line...), '\n')
	_, err := l.w.Write(l.buf)
	if cap(l.buf) > 64<<10 {
		l.buf = nil
	}
	return err
}

// readLines sends each non-blank line of in to lines and reports
// command_error for over-long ones.
func readLines(in io.Reader, lines chan<- []byte, w *lineWriter) error {
	err := lineio.Read(in, MaxLine, func(line []byte, tooLong bool) error {
		if tooLong {
			w.event(protocol.CommandError{Error: fmt.Sprintf("command line longer than %d bytes; skipped", MaxLine)})
		} else {
			lines <- append([]byte(nil), line...)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read commands: %w", err)
	}
	return nil
}
