// Package stdio serves the OpenSeek wire protocol over a pair of streams:
// JSONL commands in (stdin), JSONL events out (stdout). It is what
// `openseek serve` runs and what interactive frontends spawn.
//
// Behaviour (reference/openseek-protocol.md §4.4): a line that does not
// parse gets command_error and serving goes on; prompts run one turn at a
// time, in order; a steer while idle is answered with steer_dropped;
// cancel while idle is a no-op; at end of input the queued turns finish
// and Serve returns nil.
package stdio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/protocol"
)

// MaxLine is the longest command line accepted (images travel inline).
const MaxLine = 16 << 20

// Serve reads commands from in until EOF or ctx ends, driving eng, and
// writes events through emit (the same sink the engine emits to). At EOF
// the queued work finishes first; when ctx ends (SIGINT, SIGTERM) the
// running turn is cancelled and Serve returns at once. A line longer than
// MaxLine is skipped with a command_error.
func Serve(ctx context.Context, eng *engine.Engine, in io.Reader, emit func(protocol.Event)) error {
	s := &server{eng: eng, emit: emit, work: make(chan func(context.Context), 64)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for job := range s.work {
			job(ctx)
		}
	}()

	// The reader runs apart so that a signal is noticed while stdin is
	// quiet; it ends with the process when stdin never closes.
	lines := make(chan []byte)
	done := make(chan error, 1)
	go func() { done <- readLines(in, lines, emit) }()
	var err error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case line := <-lines:
			s.handle(line)
		case err = <-done:
			break loop
		}
	}
	close(s.work)
	if ctx.Err() != nil {
		eng.Cancel()
	}
	wg.Wait()
	return err
}

// readLines sends each non-blank line of in to lines and reports
// command_error for over-long ones.
func readLines(in io.Reader, lines chan<- []byte, emit func(protocol.Event)) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			buf = append(buf, chunk...)
			if len(buf) > MaxLine {
				tooLong, buf = true, buf[:0]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			emit(protocol.CommandError{Error: fmt.Sprintf("command line longer than %d bytes; skipped", MaxLine)})
		} else if line := trimSpace(buf); len(line) > 0 {
			lines <- append([]byte(nil), line...)
		}
		buf, tooLong = buf[:0], false
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("read commands: %w", err)
		}
	}
}

type server struct {
	eng  *engine.Engine
	emit func(protocol.Event)
	// work holds prompts and compactions, run in order by one goroutine.
	work chan func(context.Context)
}

func (s *server) handle(line []byte) {
	cmd, err := protocol.ParseCommand(line)
	if err != nil {
		s.emit(protocol.CommandError{Error: err.Error()})
		return
	}
	switch c := cmd.(type) {
	case protocol.PromptCmd:
		s.work <- func(ctx context.Context) {
			if _, err := s.eng.Prompt(ctx, c.Content, c.SubmissionID); err != nil {
				s.emit(protocol.SessionError{Error: err.Error()})
			}
		}
	case protocol.SteerCmd:
		if !s.eng.Steer(c.Kind, c.Content, c.SubmissionID) {
			s.emit(protocol.SteerDropped{Content: c.Content, SubmissionID: c.SubmissionID})
		}
	case protocol.CancelCmd:
		s.eng.Cancel()
	case protocol.GoalCmd:
		var text *string
		if c.Action == "set" {
			text = &c.Text
		}
		if err := s.eng.SetGoal(text, c.Auto); err != nil {
			s.emit(protocol.CommandError{Error: err.Error()})
		}
	case protocol.CompactCmd:
		// Failures are reported by compaction_failed.
		s.work <- func(ctx context.Context) { _ = s.eng.Compact(ctx) }
	case protocol.ApprovalCmd:
		if err := s.eng.ResolveApproval(c.ID, c.Allow, c.Remember); err != nil {
			s.emit(protocol.CommandError{Error: err.Error()})
		}
	case protocol.JobsSnapshotCmd:
		s.emit(protocol.JobsSnapshot{RequestID: c.RequestID, Jobs: s.eng.Jobs()})
	case protocol.JobStopCmd:
		s.emit(protocol.JobStopResult{RequestID: c.RequestID, Generation: c.Generation, JobID: c.JobID, Outcome: s.eng.StopJob(c.Generation, c.JobID)})
	default:
		s.emit(protocol.CommandError{Error: "unknown command: " + cmd.CommandName()})
	}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}
