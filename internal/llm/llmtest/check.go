package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

type wireMessage struct {
	Role      string `json:"role"`
	ToolCalls []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
}

// check returns why a provider would reject req, or "". Called with s.mu held.
func (s *Server) check(req Request) string {
	var pending []string // tool calls not yet answered
	// Messages a request repeats from the previous one, which passed
	// these checks with every call answered, need no second look (unless
	// reasoning is required now and was not then): a long conversation
	// is checked in time proportional to what is new.
	start := 0
	if p := s.prev; p != nil && (!s.prevLax || s.noReasoning) && len(req.Messages) >= len(p.Messages) {
		start = len(p.Messages)
		for i, old := range p.Messages {
			if !bytes.Equal(old, req.Messages[i]) {
				start = 0
				break
			}
		}
	}
	for i, raw := range req.Messages[start:] {
		i += start
		var m wireMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Sprintf("messages[%d] is not an object: %v", i, err)
		}
		if m.Role == "tool" {
			j := slices.Index(pending, m.ToolCallID)
			if j < 0 {
				return fmt.Sprintf("messages[%d]: tool message answers %q, which is not an open tool call", i, m.ToolCallID)
			}
			pending = slices.Delete(pending, j, j+1)
			continue
		}
		if len(pending) > 0 {
			return fmt.Sprintf("messages[%d] (%s): tool calls %s were not answered by tool messages", i, m.Role, strings.Join(pending, ", "))
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		if !s.noReasoning && (len(m.ReasoningContent) == 0 || string(m.ReasoningContent) == "null") {
			return fmt.Sprintf("messages[%d]: the reasoning_content of an assistant message with tool calls must be passed back to the API", i)
		}
		for _, c := range m.ToolCalls {
			pending = append(pending, c.ID)
		}
	}
	if len(pending) > 0 {
		return fmt.Sprintf("tool calls %s were not answered by tool messages", strings.Join(pending, ", "))
	}
	if s.multi {
		return ""
	}
	if s.prev != nil && !s.allowBreak {
		if len(req.Messages) < len(s.prev.Messages) {
			return fmt.Sprintf("history shrank from %d to %d messages (prefix broken; call ExpectPrefixBreak if intended)", len(s.prev.Messages), len(req.Messages))
		}
		for i, old := range s.prev.Messages {
			if !bytes.Equal(old, req.Messages[i]) {
				return fmt.Sprintf("messages[%d] differs from the previous request (prefix broken; call ExpectPrefixBreak if intended):\n  was: %s\n  now: %s", i, old, req.Messages[i])
			}
		}
	}
	return ""
}

// usageEstimate is the default token accounting of a request.
type usageEstimate struct{ prompt, hit int }

func estimate(prev *Request, req Request) usageEstimate {
	shared := 0
	if prev != nil {
		shared = SharedPrefix(prev.Prompt, req.Prompt)
	}
	e := usageEstimate{prompt: max(len(req.Prompt)/4, 1), hit: shared / 4}
	e.hit = min(e.hit, e.prompt)
	return e
}

// SharedPrefix is the length of the common prefix of a and b: what a
// provider's prefix cache could serve of b after seeing a.
func SharedPrefix(a, b []byte) int {
	n, end := 0, min(len(a), len(b))
	const block = 4096
	for n+block <= end && bytes.Equal(a[n:n+block], b[n:n+block]) {
		n += block
	}
	for n < end && a[n] == b[n] {
		n++
	}
	return n
}

// conversation finds the earlier request that req continues in
// multi-conversation mode: the latest one whose messages are all a
// prefix of req's. It returns nil, "" when req starts a new conversation
// (it carries no assistant message yet), or a reason to reject it.
func (s *Server) conversation(req Request) (*Request, string) {
	for i := len(s.heads) - 1; i >= 0; i-- {
		h := s.heads[i]
		if len(h.Messages) > len(req.Messages) {
			continue
		}
		ok := true
		for j, m := range h.Messages {
			if !bytes.Equal(m, req.Messages[j]) {
				ok = false
				break
			}
		}
		if ok {
			s.heads = append(s.heads[:i], s.heads[i+1:]...)
			return h, ""
		}
	}
	for _, raw := range req.Messages {
		var m wireMessage
		if json.Unmarshal(raw, &m) == nil && m.Role == "assistant" {
			if s.allowBreak {
				return nil, ""
			}
			return nil, "the request continues no earlier conversation (prefix broken; call ExpectPrefixBreak if intended)"
		}
	}
	return nil, ""
}
