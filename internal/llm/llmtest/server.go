package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
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
	script // the turns, the requests, the prefix-break state; mu guards the rest

	prev        *Request   // the last request that passed the checks
	prevLax     bool       // prev was checked without requiring reasoning
	multi       bool       // several conversations interleave (sub-agents)
	heads       []*Request // multi: the latest request of each conversation
	noReasoning bool
}

// NewServer starts a server that plays turns; t.Cleanup closes it.
func NewServer(t testing.TB, turns ...Turn) *Server {
	t.Helper()
	s := &Server{}
	s.start(t, Path, writeError, s.handle, turns)
	return s
}

// URL is the full chat-completions URL.
func (s *Server) URL() string { return s.srv.URL + Path }

// MultiConversation lets several conversations interleave, as when
// sub-agents run beside their parent: each request must then extend the
// latest request of some earlier conversation byte for byte, or start a
// new one (no assistant message yet).
func (s *Server) MultiConversation() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.multi = true
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
	body, ok := s.read(w, r)
	if !ok {
		return
	}
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		s.malformed(w, "request body is not valid JSON: "+err.Error())
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

	var est usageEstimate
	turn, n, ok := s.admit(w, req, func(int, Turn) string {
		if msg := s.check(req); msg != "" {
			return msg
		}
		prev := s.prev
		if s.multi {
			var why string
			if prev, why = s.conversation(req); why != "" {
				return why
			}
			s.heads = append(s.heads, &req)
		}
		est = estimate(prev, req)
		s.prev, s.prevLax = &req, s.noReasoning
		return ""
	})
	if !ok {
		return
	}
	s.play(w, r, turn, chatStream{id: fmt.Sprintf("chatcmpl-llmtest-%d", n), model: req.Model, n: n, est: est})
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
