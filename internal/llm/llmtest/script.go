package llmtest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// script is the plumbing both scripted servers share: the HTTP server,
// the turns not yet played, the requests received and the prefix-break
// state. mu guards it and the vendor state of the server that embeds it.
// The server keeps only its wire format and its vendor's checks.
type script struct {
	t          testing.TB
	srv        *httptest.Server
	done       chan struct{}                                       // closed at cleanup: releases stalled handlers
	path       string                                              // the one endpoint
	writeError func(w http.ResponseWriter, status int, msg string) // in the vendor's error shape

	mu         sync.Mutex
	turns      []Turn
	reqs       []Request
	count      int  // requests received, forgotten ones included
	allowBreak bool // the next request may break the prefix
}

// start serves handle at path until t's cleanup.
func (s *script) start(t testing.TB, path string, writeError func(http.ResponseWriter, int, string), handle http.HandlerFunc, turns []Turn) {
	s.t, s.path, s.writeError, s.turns = t, path, writeError, turns
	s.done = make(chan struct{})
	s.srv = httptest.NewServer(handle)
	t.Cleanup(func() {
		close(s.done)
		s.srv.Close()
	})
}

// Push appends turns to the script.
func (s *script) Push(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Requests returns every request received so far, in order.
func (s *script) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// ForgetRequests drops the requests recorded so far (Requests no longer
// returns them; request numbers go on), so that a long benchmark does not keep every request
// body; the prefix check still compares with the last request.
func (s *script) ForgetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}

// Remaining is the number of turns not yet played.
func (s *script) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}

// ExpectPrefixBreak exempts the next request from the prefix check, as
// after compaction rewrites the history.
func (s *script) ExpectPrefixBreak() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowBreak = true
}

// read checks that r is a POST to the endpoint and reads its body. On
// failure it has already answered.
func (s *script) read(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Method != http.MethodPost || r.URL.Path != s.path {
		s.t.Errorf("llmtest: unexpected %s %s", r.Method, r.URL.Path)
		s.writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
		return nil, false
	}
	body, err := io.ReadAll(r.Body)
	return body, err == nil
}

// malformed fails the test and answers 400 for a body that could not be
// decoded.
func (s *script) malformed(w http.ResponseWriter, msg string) {
	s.t.Errorf("llmtest: %s", msg)
	s.writeError(w, http.StatusBadRequest, msg)
}

// admit records req and takes the next turn for it. accept, called with
// mu held, runs the vendor's checks on request n (next is the turn it will
// get, nil if the script has run out) and takes it in; it returns why the
// provider would reject it, or "". While accept runs, allowBreak also
// holds when next is a Reply{Summary: true}; afterwards it holds exactly
// when that was so (the history after a summary starts anew). On failure
// admit has already answered the request.
func (s *script) admit(w http.ResponseWriter, req Request, accept func(n int, next Turn) string) (Turn, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	s.count++
	n := s.count
	var next Turn
	if len(s.turns) > 0 {
		next = s.turns[0]
	}
	summary := false
	if r, ok := next.(Reply); ok && r.Summary {
		summary = true
		s.allowBreak = true
	}
	if msg := accept(n, next); msg != "" {
		s.t.Errorf("llmtest: request %d rejected: %s", n, msg)
		s.writeError(w, http.StatusBadRequest, msg)
		return nil, n, false
	}
	s.allowBreak = summary
	if next == nil {
		s.t.Errorf("llmtest: request %d: the script has no more turns", n)
		s.writeError(w, http.StatusInternalServerError, "llmtest: the script has no more turns")
		return nil, n, false
	}
	s.turns = s.turns[1:]
	return next, n, true
}

// play answers with turn, rendering replies through st.
func (s *script) play(w http.ResponseWriter, r *http.Request, turn Turn, st stream) {
	p := player{w: w, r: r, done: s.done, stream: st, writeError: s.writeError}
	switch tt := turn.(type) {
	case Reply:
		p.reply(tt, -1)
	case Cut:
		p.reply(tt.Reply, tt.After)
		panic(http.ErrAbortHandler) // drop the connection mid-stream
	case Stall:
		p.stall(tt.After)
	case Fail:
		p.fail(tt)
	default:
		s.t.Errorf("llmtest: unknown turn type %T", turn)
		s.writeError(w, http.StatusInternalServerError, fmt.Sprintf("unknown turn %T", turn))
	}
}

// replyOf is the Reply a turn streams, if any.
func replyOf(t Turn) (Reply, bool) {
	switch tt := t.(type) {
	case Reply:
		return tt, true
	case Cut:
		return tt.Reply, true
	}
	return Reply{}, false
}
