package llmtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// AnthropicPath is where the Anthropic server answers Messages requests.
const AnthropicPath = "/v1/messages"

// AnthropicServer is a scripted Anthropic Messages API server: the same
// Turn script as Server (Reply, Fail, Stall, Cut), answered at POST
// /v1/messages with Anthropic's SSE events (message_start, ping,
// content_block_start/delta/stop with text_delta, thinking_delta,
// signature_delta and input_json_delta, message_delta with the stop
// reason and usage, message_stop) and Anthropic's JSON error objects.
// Thinking is signed with Signature(thinking); tool_use ids default to
// toolu_llmtest_<request>_<n>. It is safe for concurrent use; turns are
// consumed in arrival order.
//
// Every request is checked against the rules the real API enforces, and a
// violation is answered with HTTP 400 (invalid_request_error) and fails
// the test through t.Errorf:
//
//   - the anthropic-version header, model, max_tokens and stream are set;
//     an enabled thinking budget is at least 1024 and below max_tokens;
//     at most 4 cache_control breakpoints;
//   - roles alternate, starting with user; no empty message or text block;
//   - every tool_use is answered by a tool_result in the next (user)
//     message, results before any other content, none for unknown ids;
//   - every thinking block carries the signature this server gave its
//     text; a tool-use turn that came with thinking passes that thinking
//     back first in the message (turn off with RequireSignatures(false)),
//     and with thinking enabled the continued tool-use turn starts with one;
//   - prefix stability: each request's messages repeat the previous
//     request's messages (compared without cache_control, which may move),
//     the last of them possibly extended by merged blocks. Call
//     ExpectPrefixBreak before a request that rewrites history.
//
// Unless a Reply sets Usage, usage models Anthropic's prompt cache on the
// canonical prompt (bytes/4): a request reads the longest prefix that an
// earlier request's cache_control breakpoint wrote and writes up to its own
// last breakpoint; without breakpoints nothing is cached. An explicit
// Usage is sent as input = PromptCacheMissTokens, cache_read =
// PromptCacheHitTokens, output = CompletionTokens.
type AnthropicServer struct {
	t    testing.TB
	srv  *httptest.Server
	done chan struct{} // closed at cleanup: releases stalled handlers

	mu         sync.Mutex
	script     []Turn
	reqs       []Request
	prev       *parsedRequest // the last request that passed the checks
	allowBreak bool
	noSigs     bool
	// thought maps a tool_use id this server sent to the signature of the
	// thinking block that came with it.
	thought map[string]string
	// cached holds the prompt prefixes written to the cache: the hash of
	// the canonical prompt up to each cache_control breakpoint.
	cached map[[sha256.Size]byte]bool
}

// NewAnthropicServer starts a server that plays turns; t.Cleanup closes
// it.
func NewAnthropicServer(t testing.TB, turns ...Turn) *AnthropicServer {
	t.Helper()
	s := &AnthropicServer{
		t: t, script: turns, done: make(chan struct{}),
		thought: map[string]string{}, cached: map[[sha256.Size]byte]bool{},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(func() {
		close(s.done)
		s.srv.Close()
	})
	return s
}

// URL is the base URL (what a client appends /v1/messages to).
func (s *AnthropicServer) URL() string { return s.srv.URL }

// Push appends turns to the script.
func (s *AnthropicServer) Push(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// Requests returns every request received so far, in order. Messages are
// the raw messages as sent; Prompt is the canonical prompt (tools, system,
// messages, without cache_control) that the usage estimate reads.
func (s *AnthropicServer) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Remaining is the number of turns not yet played.
func (s *AnthropicServer) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// ExpectPrefixBreak exempts the next request from the prefix check, as
// after compaction rewrites the history.
func (s *AnthropicServer) ExpectPrefixBreak() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowBreak = true
}

// RequireSignatures sets whether thinking must be passed back with its
// signature on tool-use turns (default true, as the API requires when
// thinking is on).
func (s *AnthropicServer) RequireSignatures(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noSigs = !on
}

func (s *AnthropicServer) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != AnthropicPath {
		s.t.Errorf("llmtest: unexpected %s %s", r.Method, r.URL.Path)
		writeAnthropicError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	p, err := parseAnthropic(body)
	if err != nil {
		msg := "request body is not valid JSON or not a Messages request: " + err.Error()
		s.t.Errorf("llmtest: %s", msg)
		writeAnthropicError(w, http.StatusBadRequest, msg)
		return
	}
	p.req.Header = r.Header.Clone()
	turn, usage, n, ok := s.admit(w, p)
	if !ok {
		return
	}
	ap := anthropicPlayer{player: player{w: w, r: r, done: s.done, model: p.wire.Model, id: fmt.Sprintf("msg_llmtest_%d", n), n: n}}
	switch tt := turn.(type) {
	case Reply:
		ap.reply(tt, usage, -1)
	case Cut:
		ap.reply(tt.Reply, usage, tt.After)
		panic(http.ErrAbortHandler) // drop the connection mid-stream
	case Stall:
		ap.stall(tt.After, usage)
	case Fail:
		ap.fail(tt)
	default:
		s.t.Errorf("llmtest: unknown turn type %T", turn)
		writeAnthropicError(w, http.StatusInternalServerError, fmt.Sprintf("unknown turn %T", turn))
	}
}

// admit records the request, checks it and takes the next turn. On
// failure it has already answered the request.
func (s *AnthropicServer) admit(w http.ResponseWriter, p *parsedRequest) (Turn, anthropicUsage, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, p.req)
	n := len(s.reqs)
	summary := false
	if len(s.script) > 0 {
		if r, ok := s.script[0].(Reply); ok && r.Summary {
			summary = true
			s.allowBreak = true
		}
	}
	if msg := s.check(p); msg != "" {
		s.t.Errorf("llmtest: request %d rejected: %s", n, msg)
		writeAnthropicError(w, http.StatusBadRequest, msg)
		return nil, anthropicUsage{}, n, false
	}
	usage := s.cacheUsage(p)
	s.prev = p
	s.allowBreak = summary
	if len(s.script) == 0 {
		s.t.Errorf("llmtest: request %d: the script has no more turns", n)
		writeAnthropicError(w, http.StatusInternalServerError, "llmtest: the script has no more turns")
		return nil, usage, n, false
	}
	turn := s.script[0]
	s.script = s.script[1:]
	// Remember which tool calls came with thinking, to insist it returns.
	if rep, ok := replyOf(turn); ok && rep.Reasoning != "" {
		for i, c := range rep.Calls {
			s.thought[anthropicCallID(c, n, i)] = Signature(rep.Reasoning)
		}
	}
	return turn, usage, n, true
}

func replyOf(t Turn) (Reply, bool) {
	switch tt := t.(type) {
	case Reply:
		return tt, true
	case Cut:
		return tt.Reply, true
	}
	return Reply{}, false
}

// anthropicUsage is the token accounting of one request, Anthropic style:
// input excludes what was read from or written to the cache.
type anthropicUsage struct{ input, cacheRead, cacheWrite int }

// cacheUsage estimates usage from the canonical prompt (bytes/4): the
// longest cached prefix that ends on one of this request's block
// boundaries is read; from there to this request's last breakpoint is
// written. Without breakpoints nothing is cached, as with the real API.
// Called with s.mu held.
func (s *AnthropicServer) cacheUsage(p *parsedRequest) anthropicUsage {
	prompt := p.req.Prompt
	read := 0
	for _, b := range p.boundaries {
		if b > read && s.cached[sha256.Sum256(prompt[:b])] {
			read = b
		}
	}
	write := 0
	if k := len(p.breaks); k > 0 && p.breaks[k-1] > read {
		write = p.breaks[k-1] - read
	}
	for _, b := range p.breaks {
		s.cached[sha256.Sum256(prompt[:b])] = true
	}
	total := max(len(prompt)/4, 1)
	u := anthropicUsage{cacheRead: read / 4, cacheWrite: write / 4}
	u.input = max(total-u.cacheRead-u.cacheWrite, 0)
	return u
}

// Signature is the signature the Anthropic server puts on a thinking block
// with this text, and the only one it accepts back for that text.
func Signature(thinking string) string {
	sum := sha256.Sum256([]byte("llmtest thinking\x00" + thinking))
	return fmt.Sprintf("llmtest-sig-%x", sum[:12])
}

func anthropicCallID(c Call, n, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("toolu_llmtest_%d_%d", n, i)
}

func writeAnthropicError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{
		"type": anthropicErrorType(status), "message": msg,
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// anthropicErrorType is the error type Anthropic sends with a status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}
