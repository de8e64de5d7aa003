package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A task's session log travels beside its events, on the subject
// openseek.events.<id>.session: each message is a run of whole lines of
// the log file with the byte offset they start at (hdrOffset). Replaying
// the messages in order, each cutting the file at its offset then
// appending its lines, rebuilds the log as the last worker wrote it, so a
// worker on another machine restores the session and continues it.
const (
	hdrOffset = "Openseek-Offset"
	// maxLogChunk keeps each message well under NATS's 1 MiB payload.
	maxLogChunk = 512 << 10
)

func logSubject(id string) string { return eventSubject(id) + ".session" }

// logSync publishes the new whole lines of a session log as it grows.
type logSync struct {
	ctx     context.Context // the run's: a stopping worker publishes no more
	c       *Client
	id      string
	attempt int

	mu   sync.Mutex
	path string
	off  int64 // bytes of the log already on the subject

	quit chan struct{}
	done chan struct{}
}

// start begins following the log at path, every quarter second (a turn
// stalled on the model loses nothing; a fast task publishes its log once,
// at its end).
func (l *logSync) start(path string) {
	l.mu.Lock()
	l.path = path
	l.mu.Unlock()
	l.quit, l.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(l.done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-l.quit:
				return
			case <-tick.C:
				l.sync()
			}
		}
	}()
}

// stop ends the following and publishes what is left.
func (l *logSync) stop() {
	if l.quit != nil {
		close(l.quit)
		<-l.done
	}
	l.sync()
}

// sync publishes the log's whole lines past the published offset. A log
// that shrank (a torn last line repaired) is published again from its
// new end.
func (l *logSync) sync() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.path == "" {
		return
	}
	f, err := os.Open(l.path)
	if err != nil {
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return
	}
	if st.Size() < l.off {
		// Shrunk: an empty message at the new end cuts the published log.
		if l.publish(st.Size(), nil) != nil {
			return
		}
		l.off = st.Size()
	}
	for st.Size() > l.off {
		n := min(st.Size()-l.off, maxLogChunk)
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, l.off); err != nil && !errors.Is(err, io.EOF) {
			return
		}
		end := bytes.LastIndexByte(buf, '\n')
		if end < 0 {
			return // no whole line yet (or one longer than a chunk: it waits)
		}
		buf = buf[:end+1]
		if l.publish(l.off, buf) != nil {
			return // tried again on the next sync
		}
		l.off += int64(len(buf))
	}
}

// publish sends the log's bytes from offset off.
func (l *logSync) publish(off int64, data []byte) error {
	m := nats.NewMsg(logSubject(l.id))
	m.Header.Set(hdrOffset, strconv.FormatInt(off, 10))
	m.Header.Set(hdrAttempt, strconv.Itoa(l.attempt))
	m.Data = data
	ctx, cancel := context.WithTimeout(l.ctx, 10*time.Second)
	defer cancel()
	return retry(ctx, func() error { _, err := l.c.js.PublishMsg(ctx, m); return err })
}

// SessionLog rebuilds task id's session log from its subject (nil when
// none was published).
func (c *Client) SessionLog(ctx context.Context, id string) ([]byte, error) {
	subj := logSubject(id)
	st, err := c.js.Stream(ctx, EventsStream)
	if err != nil {
		return nil, fmt.Errorf("read the session of task %s: %w", id, err)
	}
	last, err := st.GetLastMsgForSubject(ctx, subj)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the session of task %s: %w", id, err)
	}
	cons, err := c.js.OrderedConsumer(ctx, EventsStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}})
	if err != nil {
		return nil, fmt.Errorf("read the session of task %s: %w", id, err)
	}
	var log []byte
	for {
		nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		msg, err := cons.Next(jetstream.FetchContext(nctx))
		cancel()
		if err != nil {
			return nil, fmt.Errorf("read the session of task %s: %w", id, err)
		}
		off, err := strconv.ParseInt(msg.Headers().Get(hdrOffset), 10, 64)
		if err == nil && off >= 0 && off <= int64(len(log)) {
			log = append(log[:off], msg.Data()...)
		}
		md, err := msg.Metadata()
		if err != nil || md.Sequence.Stream >= last.Sequence {
			return log, nil
		}
	}
}

// restoreLog writes task t's published session log to path unless a log
// is there already (a workspace this machine kept); it returns the bytes
// of the log known to be published.
func (c *Client) restoreLog(ctx context.Context, id, path string) (published int64, restored bool, err error) {
	data, err := c.SessionLog(ctx, id)
	if err != nil || len(data) == 0 {
		return 0, false, err
	}
	if _, err := os.Stat(path); err == nil {
		return int64(len(data)), false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, false, fmt.Errorf("restore the session of task %s: %w", id, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return 0, false, fmt.Errorf("restore the session of task %s: %w", id, err)
	}
	return int64(len(data)), true, nil
}
