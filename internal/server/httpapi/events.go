package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/protocol"
)

// batch is how many events one write carries at most.
const batch = 256

// events streams a session's events as server-sent events.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	since, err := resumePoint(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if s.o.ReadOnly {
		// Nothing is live here: the snapshot is all there is. 204 tells
		// a client not to reconnect.
		if _, err := s.host.LoadSession(id); err != nil {
			sessionError(w, id, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	// A GET changes nothing: a session on disk is resumed by a POST
	// (POST /v1/sessions {"id"} or a command), not by reading its stream.
	sess, ok := s.host.Get(id)
	if !ok {
		if _, err := s.host.LoadSession(id); err != nil {
			sessionError(w, id, err)
			return
		}
		writeError(w, http.StatusConflict, "session "+quote(id)+" is not open; POST /v1/sessions {\"id\":"+quote(id)+"} resumes it, then follow its events")
		return
	}
	s.running.Add(1)
	defer s.running.Done()
	sub := sess.Subscribe(since)
	defer sub.Close()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.streams, cancel)
	defer stop()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, rc: http.NewResponseController(w), timeout: s.o.WriteTimeout}
	if st.flush() != nil {
		return
	}
	for {
		entries, err := s.next(ctx, sub)
		var lag *engine.Lag
		switch {
		case errors.As(err, &lag):
			st.reset(lag.Reset())
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			st.buf = append(st.buf, ": ping\n\n"...)
		case err != nil:
			// The session closed (every event was sent), the client left
			// or the server is shutting down.
			return
		}
		for _, e := range entries {
			st.entry(e)
		}
		if st.flush() != nil {
			return // the client is gone; the turn goes on without it
		}
	}
}

// next waits for the subscription's next events, or for the keep-alive
// interval (context.DeadlineExceeded). A timer is set only when nothing is
// pending, so a busy stream costs no timers.
func (s *Server) next(ctx context.Context, sub *engine.Subscription) ([]engine.Entry, error) {
	if sub.Pending() {
		return sub.Next(ctx, batch)
	}
	wctx, cancel := context.WithTimeout(ctx, s.o.KeepAlive)
	defer cancel()
	return sub.Next(wctx, batch)
}

// resumePoint is the sequence a stream starts after: Last-Event-ID (sent
// by a reconnecting client), else ?since=, else 0 (the whole window).
func resumePoint(r *http.Request) (int64, error) {
	v, from := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if v == "" {
		v, from = r.URL.Query().Get("since"), "since"
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New(from + " must be an event sequence number (0 or more), not " + quote(v))
	}
	return n, nil
}

// stream formats server-sent events into one buffer per write.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     []byte
}

// entry writes an event; a replayed approval request (engine.Entry.Replay)
// has no id line, so the client's Last-Event-ID stays where it was.
func (st *stream) entry(e engine.Entry) {
	if !e.Replay {
		st.buf = append(st.buf, "id: "...)
		st.buf = strconv.AppendInt(st.buf, e.Seq, 10)
		st.buf = append(st.buf, '\n')
	}
	st.buf = append(st.buf, "event: "...)
	st.buf = append(st.buf, e.Event.EventName()...)
	st.buf = append(st.buf, "\ndata: "...)
	st.buf = append(st.buf, e.Line...)
	st.buf = append(st.buf, "\n\n"...)
}

// reset tells the client it fell behind: no id line, so its Last-Event-ID
// stays the last event it really received.
func (st *stream) reset(ev protocol.StreamReset) {
	st.buf = append(st.buf, "event: stream_reset\ndata: "...)
	st.buf = append(st.buf, protocol.Emit(ev)...)
	st.buf = append(st.buf, "\n\n"...)
}

// flush writes what is buffered, bounded by the write timeout so that a
// client that stopped reading is dropped instead of holding a goroutine.
func (st *stream) flush() error {
	if len(st.buf) > 0 {
		_ = st.rc.SetWriteDeadline(time.Now().Add(st.timeout))
		_, err := st.w.Write(st.buf)
		st.buf = st.buf[:0]
		if cap(st.buf) > 64<<10 {
			st.buf = nil // an idle stream keeps no big buffer
		}
		if err != nil {
			return err
		}
	}
	return st.rc.Flush()
}
