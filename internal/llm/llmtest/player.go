package llmtest

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// stream renders replies in one vendor's SSE format, for one request.
type stream interface {
	// frames renders rep as SSE events, each as written on the wire.
	frames(rep Reply) [][]byte
	// trailer follows the frames of a complete reply; nil for none.
	trailer() []byte
}

// player writes one scripted response; the chunking, pacing, stalling
// and cutting are the same for every vendor.
type player struct {
	w          http.ResponseWriter
	r          *http.Request
	done       <-chan struct{}
	stream     stream
	writeError func(w http.ResponseWriter, status int, msg string)
}

// reply streams rep; limit >= 0 stops after that many events, without
// the trailer (the caller then drops the connection).
func (p *player) reply(rep Reply, limit int) {
	h := p.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	p.w.WriteHeader(http.StatusOK)
	p.flush()
	for i, f := range p.stream.frames(rep) {
		if limit >= 0 && i >= limit {
			return
		}
		if rep.Delay > 0 && !p.wait(rep.Delay) {
			return
		}
		if !p.write(f) {
			return
		}
	}
	if t := p.stream.trailer(); limit < 0 && t != nil {
		p.write(t)
	}
}

// stall sends after events of a filler reply, then waits for the client
// to leave.
func (p *player) stall(after int) {
	if after > 0 {
		filler := Reply{Text: strings.Repeat("waiting ", after), ChunkSize: 8}
		p.w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		p.w.WriteHeader(http.StatusOK)
		for i, f := range p.stream.frames(filler) {
			if i >= after || !p.write(f) {
				break
			}
		}
	}
	select {
	case <-p.r.Context().Done():
	case <-p.done:
	}
}

// fail answers with an HTTP error: the vendor's JSON error object, or
// Body as given (HTML unless it starts with '{').
func (p *player) fail(f Fail) {
	status := f.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if f.RetryAfter != "" {
		p.w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.Body == "" {
		p.writeError(p.w, status, fmt.Sprintf("llmtest: scripted failure (HTTP %d)", status))
		return
	}
	ct := "text/html; charset=utf-8"
	if strings.HasPrefix(strings.TrimSpace(f.Body), "{") {
		ct = "application/json"
	}
	p.w.Header().Set("Content-Type", ct)
	p.w.WriteHeader(status)
	_, _ = p.w.Write([]byte(f.Body))
}

// write sends one frame and flushes it; false once the client is gone.
func (p *player) write(frame []byte) bool {
	if _, err := p.w.Write(frame); err != nil {
		return false
	}
	p.flush()
	return true
}

func (p *player) flush() {
	if f, ok := p.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (p *player) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.r.Context().Done():
	case <-p.done:
	}
	return false
}

// split cuts s into pieces of at most size runes; size <= 0 means 16
// (Reply.ChunkSize's default).
func split(s string, size int) []string {
	if size <= 0 {
		size = 16
	}
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		n := min(size, len(r))
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return out
}

// completionEstimate is the default output token count of rep: its bytes
// (text, reasoning, tool names and arguments)/4, at least 1.
func completionEstimate(rep Reply) int {
	n := len(rep.Text) + len(rep.Reasoning)
	for _, c := range rep.Calls {
		n += len(c.Args) + len(c.Name)
	}
	return max(n/4, 1)
}
