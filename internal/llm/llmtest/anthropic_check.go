package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// anthropicWire is the part of a Messages request the server reads.
type anthropicWire struct {
	Model     string            `json:"model"`
	MaxTokens int               `json:"max_tokens"`
	System    json.RawMessage   `json:"system"`
	Messages  []json.RawMessage `json:"messages"`
	Tools     []json.RawMessage `json:"tools"`
	Thinking  *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
	Stream bool `json:"stream"`
}

// anthropicMessage is one message with its content as blocks (a string
// content is one text block).
type anthropicMessage struct {
	Role   string
	Blocks []anthropicBlock
	Canon  []json.RawMessage // each block, canonical and without cache_control
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Thinking  *string         `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
}

// parsedRequest is a request decoded for the checks and the usage
// estimate.
type parsedRequest struct {
	req        Request
	wire       anthropicWire
	msgs       []anthropicMessage
	nBreaks    int   // cache_control markers anywhere
	breaks     []int // Prompt offsets just after an element carrying one
	boundaries []int // Prompt offsets after every element (tool, system block, message block)
}

func parseAnthropic(body []byte) (*parsedRequest, error) {
	p := &parsedRequest{}
	if err := json.Unmarshal(body, &p.wire); err != nil {
		return nil, err
	}
	p.req = Request{Body: body, Model: p.wire.Model, Messages: p.wire.Messages}
	// The canonical prompt, in the order the API renders it for the
	// cache: tools, system, messages, block by block.
	element := func(raw json.RawMessage) error {
		canon, marks, err := canonical(raw)
		if err != nil {
			return err
		}
		p.req.Prompt = append(p.req.Prompt, canon...)
		p.boundaries = append(p.boundaries, len(p.req.Prompt))
		if marks > 0 {
			p.nBreaks += marks
			p.breaks = append(p.breaks, len(p.req.Prompt))
		}
		return nil
	}
	for i, raw := range p.wire.Tools {
		var tl struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &tl); err != nil {
			return nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
		p.req.Tools = append(p.req.Tools, tl.Name)
		if err := element(raw); err != nil {
			return nil, err
		}
	}
	system, err := blocksOf(p.wire.System)
	if err != nil {
		return nil, fmt.Errorf("system: %w", err)
	}
	for _, b := range system {
		if err := element(b); err != nil {
			return nil, err
		}
	}
	for i, raw := range p.wire.Messages {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		blocks, err := blocksOf(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		am := anthropicMessage{Role: m.Role}
		p.req.Prompt = append(p.req.Prompt, `{"role":"`+m.Role+`"}`...)
		for _, b := range blocks {
			var ab anthropicBlock
			if err := json.Unmarshal(b, &ab); err != nil {
				return nil, fmt.Errorf("messages[%d] block: %w", i, err)
			}
			am.Blocks = append(am.Blocks, ab)
			start := len(p.req.Prompt)
			if err := element(b); err != nil {
				return nil, err
			}
			am.Canon = append(am.Canon, bytes.Clone(p.req.Prompt[start:]))
		}
		p.msgs = append(p.msgs, am)
	}
	return p, nil
}

// blocksOf splits content (a string or an array of blocks) into blocks.
func blocksOf(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return []json.RawMessage{b}, nil
	}
	var out []json.RawMessage
	err := json.Unmarshal(raw, &out)
	return out, err
}

// canonical re-encodes raw with sorted keys and without cache_control,
// returning how many cache_control markers it removed.
func canonical(raw json.RawMessage) ([]byte, int, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, 0, err
	}
	marks := stripCacheControl(v)
	b, err := json.Marshal(v)
	return b, marks, err
}

func stripCacheControl(v any) int {
	n := 0
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["cache_control"]; ok {
			delete(t, "cache_control")
			n++
		}
		for _, x := range t {
			n += stripCacheControl(x)
		}
	case []any:
		for _, x := range t {
			n += stripCacheControl(x)
		}
	}
	return n
}

// check returns why the Messages API would reject the request, or "".
// Called with s.mu held.
func (s *AnthropicServer) check(p *parsedRequest) string {
	w := p.wire
	switch {
	case p.req.Header.Get("Anthropic-Version") == "":
		return "the anthropic-version header is missing"
	case w.Model == "":
		return "model: field required"
	case w.MaxTokens <= 0:
		return "max_tokens: field required"
	case !w.Stream:
		return "stream must be true"
	case p.nBreaks > 4:
		return fmt.Sprintf("a maximum of 4 blocks with cache_control may be provided, found %d", p.nBreaks)
	case len(p.msgs) == 0:
		return "messages: at least one message is required"
	}
	thinking := w.Thinking != nil && w.Thinking.Type == "enabled"
	if thinking && (w.Thinking.BudgetTokens < 1024 || w.Thinking.BudgetTokens >= w.MaxTokens) {
		return fmt.Sprintf("thinking.budget_tokens %d must be at least 1024 and less than max_tokens %d", w.Thinking.BudgetTokens, w.MaxTokens)
	}
	if msg := s.checkMessages(p.msgs, thinking); msg != "" {
		return msg
	}
	return s.checkPrefix(p)
}

func (s *AnthropicServer) checkMessages(msgs []anthropicMessage, thinking bool) string {
	for i, m := range msgs {
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if m.Role != want {
			return fmt.Sprintf("messages[%d]: roles must alternate starting with user; got %q where %q belongs", i, m.Role, want)
		}
		if len(m.Blocks) == 0 {
			return fmt.Sprintf("messages[%d]: content must not be empty", i)
		}
		for j, b := range m.Blocks {
			if msg := s.checkBlock(m, j, b); msg != "" {
				return fmt.Sprintf("messages[%d].content[%d]: %s", i, j, msg)
			}
		}
		var uses []string
		for _, b := range m.Blocks {
			if b.Type == "tool_use" {
				uses = append(uses, b.ID)
			}
		}
		if len(uses) == 0 {
			continue
		}
		if msg := s.checkThinking(m, uses, thinking && i == len(msgs)-2); msg != "" {
			return fmt.Sprintf("messages[%d]: %s", i, msg)
		}
		if i+1 == len(msgs) {
			return fmt.Sprintf("messages[%d]: tool_use ids %s were found without tool_result blocks immediately after", i, strings.Join(uses, ", "))
		}
		if msg := checkResults(msgs[i+1], uses); msg != "" {
			return fmt.Sprintf("messages[%d]: %s", i+1, msg)
		}
	}
	return ""
}

func (s *AnthropicServer) checkBlock(m anthropicMessage, j int, b anthropicBlock) string {
	switch b.Type {
	case "text":
		if b.Text == nil || *b.Text == "" {
			return "text content blocks must be non-empty"
		}
	case "thinking":
		if m.Role != "assistant" || b.Thinking == nil {
			return "a thinking block belongs in an assistant message and needs its thinking"
		}
		if b.Signature != Signature(*b.Thinking) {
			return "invalid signature in thinking block (the thinking or its signature was not passed back unchanged)"
		}
		if j != 0 {
			return "a thinking block must come first in its message"
		}
	case "tool_use":
		if m.Role != "assistant" || b.ID == "" || b.Name == "" {
			return "a tool_use block needs an id and a name, in an assistant message"
		}
		if t := bytes.TrimSpace(b.Input); len(t) == 0 || t[0] != '{' {
			return "tool_use.input: Input should be a valid dictionary"
		}
	case "tool_result":
		if m.Role != "user" {
			return "a tool_result block belongs in a user message"
		}
	case "image":
	default:
		return fmt.Sprintf("unexpected block type %q", b.Type)
	}
	return ""
}

// checkThinking insists that a tool-use turn whose thinking this server
// sent carries it back signed, and (the API's rule with thinking on) that
// the assistant turn being continued starts with a thinking block.
func (s *AnthropicServer) checkThinking(m anthropicMessage, uses []string, continued bool) string {
	if s.noSigs {
		return ""
	}
	first := m.Blocks[0]
	for _, id := range uses {
		sig, ok := s.thought[id]
		if ok && (first.Type != "thinking" || first.Signature != sig) {
			return fmt.Sprintf("the thinking block sent with tool_use %s must be passed back, with its signature, at the start of the message", id)
		}
	}
	if continued && first.Type != "thinking" {
		return "when thinking is enabled, a final assistant message with tool_use must start with a thinking block"
	}
	return ""
}

// checkResults checks the user message after a tool-use turn: a
// tool_result for every tool_use, results ahead of any other content, and
// none for a call that was not made.
func checkResults(m anthropicMessage, uses []string) string {
	open := slices.Clone(uses)
	others := false
	for _, b := range m.Blocks {
		if b.Type != "tool_result" {
			others = true
			continue
		}
		if others {
			return "tool_result blocks must come before any other content in the message"
		}
		k := slices.Index(open, b.ToolUseID)
		if k < 0 {
			return fmt.Sprintf("unexpected tool_use_id %q in tool_result blocks: each tool_result must answer a tool_use in the previous message", b.ToolUseID)
		}
		open = slices.Delete(open, k, k+1)
	}
	if len(open) > 0 {
		return fmt.Sprintf("tool_use ids %s were found without tool_result blocks immediately after", strings.Join(open, ", "))
	}
	return ""
}

// checkPrefix insists that the conversation grew by appending: every
// earlier message unchanged (cache_control aside), the last one at most
// extended with more blocks (a merged message).
func (s *AnthropicServer) checkPrefix(p *parsedRequest) string {
	if s.prev == nil || s.allowBreak {
		return ""
	}
	old := s.prev.msgs
	if len(p.msgs) < len(old) {
		return fmt.Sprintf("history shrank from %d to %d messages (prefix broken; call ExpectPrefixBreak if intended)", len(old), len(p.msgs))
	}
	for i, o := range old {
		n := p.msgs[i]
		same := o.Role == n.Role && len(n.Canon) >= len(o.Canon)
		for j := 0; same && j < len(o.Canon); j++ {
			same = bytes.Equal(o.Canon[j], n.Canon[j])
		}
		if same && (i == len(old)-1 || len(n.Canon) == len(o.Canon)) {
			continue
		}
		return fmt.Sprintf("messages[%d] differs from the previous request (prefix broken; call ExpectPrefixBreak if intended):\n  was: %s\n  now: %s", i, s.prev.req.Messages[i], p.req.Messages[i])
	}
	return ""
}
