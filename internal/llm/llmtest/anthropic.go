package llmtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
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
// consumed in arrival order. Requests records each request with Messages
// as sent and Prompt the canonical prompt (tools, system, messages,
// without cache_control) that the usage estimate reads.
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
	script // the turns, the requests, the prefix-break state; mu guards the rest

	prev   *parsedRequest // the last request that passed the checks
	noSigs bool
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
	s := &AnthropicServer{thought: map[string]string{}, cached: map[[sha256.Size]byte]bool{}}
	s.start(t, AnthropicPath, writeAnthropicError, s.handle, turns)
	return s
}

// URL is the base URL (what a client appends /v1/messages to).
func (s *AnthropicServer) URL() string { return s.srv.URL }

// RequireSignatures sets whether thinking must be passed back with its
// signature on tool-use turns (default true, as the API requires when
// thinking is on).
func (s *AnthropicServer) RequireSignatures(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noSigs = !on
}

func (s *AnthropicServer) handle(w http.ResponseWriter, r *http.Request) {
	body, ok := s.read(w, r)
	if !ok {
		return
	}
	p, err := parseAnthropic(body)
	if err != nil {
		s.malformed(w, "request body is not valid JSON or not a Messages request: "+err.Error())
		return
	}
	p.req.Header = r.Header.Clone()
	var usage anthropicUsage
	turn, n, ok := s.admit(w, p.req, func(n int, next Turn) string {
		if msg := s.check(p); msg != "" {
			return msg
		}
		usage = s.cacheUsage(p)
		s.prev = p
		// Remember which tool calls come with thinking, to insist it
		// returns.
		if rep, ok := replyOf(next); ok && rep.Reasoning != "" {
			for i, c := range rep.Calls {
				s.thought[anthropicCallID(c, n, i)] = Signature(rep.Reasoning)
			}
		}
		return ""
	})
	if !ok {
		return
	}
	s.play(w, r, turn, anthropicStream{id: fmt.Sprintf("msg_llmtest_%d", n), model: p.wire.Model, n: n, est: usage})
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
