package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Path is where the server answers chat-completions requests.
const Path = "/v1/chat/completions"

// Request is one request the server received.
type Request struct {
	Body     []byte
	Model    string
	Messages []json.RawMessage // each message's raw JSON, as sent
	Tools    []string          // the declared function names
	Header   http.Header
	// Prompt is what a provider's prompt cache sees, in the order it
	// renders it: the tool declarations, then each message.
	Prompt []byte
}

// Server is a scripted chat-completions server. It is safe for concurrent
// use; turns are consumed in arrival order.
type Server struct {
	t    testing.TB
	srv  *httptest.Server
	done chan struct{} // closed at cleanup: releases stalled handlers

	mu          sync.Mutex
	script      []Turn
	reqs        []Request
	prev        *Request   // the last request that passed the checks
	multi       bool       // several conversations interleave (sub-agents)
	heads       []*Request // multi: the latest request of each conversation
	allowBreak  bool
	noReasoning bool
}

// NewServer starts a server that plays turns; t.Cleanup closes it.
func NewServer(t testing.TB, turns ...Turn) *Server {
	t.Helper()
	s := &Server{t: t, script: turns, done: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(func() {
		close(s.done)
		s.srv.Close()
	})
	return s
}

// URL is the full chat-completions URL.
func (s *Server) URL() string { return s.srv.URL + Path }

// Push appends turns to the script.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Remaining is the number of turns not yet played.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// MultiConversation lets several conversations interleave, as when
// sub-agents run beside their parent: each request must then extend the
// latest request of some earlier conversation byte for byte, or start a
// new one (no assistant message yet).
func (s *Server) MultiConversation() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.multi = true
}

// ExpectPrefixBreak exempts the next request from the prefix check, as
// after compaction rewrites the history.
func (s *Server) ExpectPrefixBreak() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowBreak = true
}

// RequireReasoning sets whether assistant tool-call messages must carry
// reasoning_content (default true, as DeepSeek requires).
func (s *Server) RequireReasoning(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noReasoning = !on
}

type wireRequest struct {
	Model    string            `json:"model"`
	Messages []json.RawMessage `json:"messages"`
	Tools    json.RawMessage   `json:"tools"`
}

type wireTool struct {
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != Path {
		s.t.Errorf("llmtest: unexpected %s %s", r.Method, r.URL.Path)
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		s.t.Errorf("llmtest: request body is not valid JSON: %v", err)
		writeError(w, http.StatusBadRequest, "request body is not valid JSON: "+err.Error())
		return
	}
	req := Request{Body: body, Model: wr.Model, Messages: wr.Messages, Header: r.Header.Clone()}
	var tools []wireTool
	if len(wr.Tools) > 0 {
		_ = json.Unmarshal(wr.Tools, &tools)
	}
	for _, tl := range tools {
		req.Tools = append(req.Tools, tl.Function.Name)
	}
	req.Prompt = append(req.Prompt, wr.Tools...)
	for _, m := range wr.Messages {
		req.Prompt = append(req.Prompt, m...)
	}

	turn, usage, n, ok := s.admit(w, req)
	if !ok {
		return
	}
	p := player{w: w, r: r, done: s.done, model: req.Model, id: fmt.Sprintf("chatcmpl-llmtest-%d", n), n: n}
	switch tt := turn.(type) {
	case Reply:
		p.reply(tt, usage, -1)
	case Cut:
		p.reply(tt.Reply, usage, tt.After)
		panic(http.ErrAbortHandler) // drop the connection mid-stream
	case Stall:
		p.stall(tt.After, usage)
	case Fail:
		p.fail(tt)
	default:
		s.t.Errorf("llmtest: unknown turn type %T", turn)
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("unknown turn %T", turn))
	}
}

// admit records req, checks it and takes the next turn. On failure it has
// already answered the request.
func (s *Server) admit(w http.ResponseWriter, req Request) (Turn, usageEstimate, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	summary := false
	if len(s.script) > 0 {
		if r, ok := s.script[0].(Reply); ok && r.Summary {
			summary = true
			s.allowBreak = true
		}
	}
	if msg := s.check(req); msg != "" {
		s.t.Errorf("llmtest: request %d rejected: %s", n, msg)
		writeError(w, http.StatusBadRequest, msg)
		return nil, usageEstimate{}, n, false
	}
	prev := s.prev
	if s.multi {
		var why string
		if prev, why = s.conversation(req); why != "" {
			s.t.Errorf("llmtest: request %d rejected: %s", n, why)
			writeError(w, http.StatusBadRequest, why)
			return nil, usageEstimate{}, n, false
		}
		s.heads = append(s.heads, &req)
	}
	est := estimate(prev, req)
	s.prev = &req
	// After a summary the next request starts from the new history.
	s.allowBreak = summary
	if len(s.script) == 0 {
		s.t.Errorf("llmtest: request %d: the script has no more turns", n)
		writeError(w, http.StatusInternalServerError, "llmtest: the script has no more turns")
		return nil, est, n, false
	}
	turn := s.script[0]
	s.script = s.script[1:]
	return turn, est, n, true
}

func writeError(w http.ResponseWriter, status int, msg string) {
	typ := "invalid_request_error"
	if status >= 500 {
		typ = "server_error"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": nil,
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
