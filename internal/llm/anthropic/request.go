package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/protocol"
)

// wireRequest is the Messages API request body. Field order is fixed so the
// same conversation always encodes to the same bytes.
type wireRequest struct {
	Model     string        `json:"model"`
	MaxTokens int           `json:"max_tokens"`
	System    []wireBlock   `json:"system,omitempty"`
	Messages  []wireMessage `json:"messages"`
	Tools     []wireTool    `json:"tools,omitempty"`
	Thinking  *wireThinking `json:"thinking,omitempty"`
	Stream    bool          `json:"stream"`
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

// wireBlock is every content block kind the client sends: text, image,
// thinking, tool_use and tool_result.
type wireBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Source       *imageSource    `json:"source,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      []wireBlock     `json:"content,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"` // base64 on the wire
}

type cacheControl struct {
	Type string `json:"type"`
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type wireThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

const (
	// DefaultMaxTokens is max_tokens when neither the request nor the
	// Config sets one.
	DefaultMaxTokens = 32000
	// minThinkingBudget is the smallest budget_tokens the API accepts.
	minThinkingBudget = 1024
	// answerReserve is what a thinking budget leaves of max_tokens for the
	// visible answer and tool calls.
	answerReserve = 4096
	// maxBreakpoints is how many cache_control blocks the API accepts.
	maxBreakpoints = 4
)

// DefaultThinkingBudget maps a --thinking mode to budget_tokens: "no"
// disables thinking (0), "high" is 8k and "max" 32k; "" and unknown modes
// send no thinking field at all (-1), leaving the API's default (off).
func DefaultThinkingBudget(mode string) int {
	switch mode {
	case "no":
		return 0
	case "high":
		return 8 << 10
	case "max":
		return 32 << 10
	}
	return -1
}

var (
	emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)
	emptyInput  = json.RawMessage(`{}`)
	ephemeral   = &cacheControl{Type: "ephemeral"}
)

// encodeRequest builds the request body. budget is from ThinkingBudget
// (<0 none, 0 disabled, >0 enabled); maxTokens is already defaulted.
func encodeRequest(req llm.Request, maxTokens, budget int) ([]byte, error) {
	w := wireRequest{Model: req.Model, MaxTokens: maxTokens, Stream: true}
	switch {
	case budget == 0:
		w.Thinking = &wireThinking{Type: "disabled"}
	case budget > 0:
		// The API requires minThinkingBudget <= budget < max_tokens. A
		// budget that does not fit leaves answerReserve for the answer
		// rather than raise max_tokens past what the caller (and maybe the
		// model) allows; only a max_tokens too small for any thinking is
		// raised.
		if budget >= maxTokens {
			budget = maxTokens - answerReserve
		}
		budget = max(budget, minThinkingBudget)
		if budget >= w.MaxTokens {
			w.MaxTokens = budget + answerReserve
		}
		w.Thinking = &wireThinking{Type: "enabled", BudgetTokens: budget}
	}
	for _, t := range req.Tools {
		wt := wireTool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters}
		if len(bytes.TrimSpace(t.Parameters)) == 0 {
			wt.InputSchema = emptySchema
		}
		w.Tools = append(w.Tools, wt)
	}
	for i, m := range req.Messages {
		if err := w.add(m); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	if w.Thinking != nil && w.Thinking.Type == "enabled" && w.continuesUnsignedToolUse() {
		// With thinking on, the API rejects a tool-use turn being continued
		// unless it starts with its signed thinking block. Without the
		// signature (a history that did not keep it), this step goes
		// without thinking rather than fail.
		w.Thinking = &wireThinking{Type: "disabled"}
	}
	w.placeBreakpoints()
	return marshal(w)
}

// continuesUnsignedToolUse reports whether the request answers tool calls
// of an assistant message that has no thinking block.
func (w *wireRequest) continuesUnsignedToolUse() bool {
	n := len(w.Messages)
	if n < 2 || w.Messages[n-1].Role != "user" || w.Messages[n-1].Content[0].Type != "tool_result" {
		return false
	}
	return w.Messages[n-2].Role == "assistant" && w.Messages[n-2].Content[0].Type != "thinking"
}

// add appends m. System text joins the top-level system blocks; tool
// results become user tool_result blocks. A message with the same role as
// the one before it is merged into it, since the API wants roles to
// alternate; tool_result blocks stay ahead of other blocks in a user
// message, as the API requires.
func (w *wireRequest) add(m chat.Message) error {
	var role string
	var blocks []wireBlock
	switch m.Role {
	case chat.System:
		w.System = append(w.System, contentBlocks(m.Content)...)
		return nil
	case chat.User:
		role, blocks = "user", contentBlocks(m.Content)
	case chat.Tool:
		role = "user"
		blocks = []wireBlock{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: contentBlocks(m.Content)}}
	case chat.Assistant:
		role, blocks = "assistant", assistantBlocks(m)
	default:
		return fmt.Errorf("unknown role %q", m.Role)
	}
	if len(blocks) == 0 {
		// The API rejects empty messages and empty text blocks.
		return nil
	}
	if n := len(w.Messages); n > 0 && w.Messages[n-1].Role == role {
		last := &w.Messages[n-1]
		last.Content = mergeBlocks(last.Content, blocks)
		return nil
	}
	w.Messages = append(w.Messages, wireMessage{Role: role, Content: blocks})
	return nil
}

// mergeBlocks appends add to have, keeping tool_result blocks first.
func mergeBlocks(have, add []wireBlock) []wireBlock {
	isResult := func(b wireBlock) bool { return b.Type == "tool_result" }
	if len(add) == 0 || !isResult(add[0]) {
		return append(have, add...)
	}
	// A tool result after plain text (a notice between results): move the
	// results up to follow the results already there.
	i := 0
	for i < len(have) && isResult(have[i]) {
		i++
	}
	out := make([]wireBlock, 0, len(have)+len(add))
	out = append(out, have[:i]...)
	out = append(out, add...)
	return append(out, have[i:]...)
}

// assistantBlocks is thinking (when it can be proven with a signature),
// then text, then tool_use blocks. Reasoning without a signature is not
// sent: the API rejects an unsigned thinking block.
func assistantBlocks(m chat.Message) []wireBlock {
	var out []wireBlock
	if m.Reasoning != nil && m.ReasoningSignature != "" {
		r := *m.Reasoning
		out = append(out, wireBlock{Type: "thinking", Thinking: &r, Signature: m.ReasoningSignature})
	}
	if text := m.Text(); text != "" {
		out = append(out, wireBlock{Type: "text", Text: text})
	}
	for _, c := range m.ToolCalls {
		out = append(out, wireBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: toolInput(c.Arguments)})
	}
	return out
}

// toolInput is the call's arguments as the JSON object the API requires:
// "" is {} and text that is not a JSON object (a call the model botched,
// which the tool answered with a decode error) is {} too.
func toolInput(args string) json.RawMessage {
	raw := bytes.TrimSpace([]byte(args))
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return emptyInput
	}
	return raw
}

// contentBlocks converts text and image parts, dropping empty text.
func contentBlocks(c protocol.Content) []wireBlock {
	out := make([]wireBlock, 0, len(c))
	for _, p := range c {
		switch p.Type {
		case "image":
			out = append(out, wireBlock{Type: "image", Source: &imageSource{Type: "base64", MediaType: p.MediaType, Data: p.Data}})
		default:
			if p.Text != "" {
				out = append(out, wireBlock{Type: "text", Text: p.Text})
			}
		}
	}
	return out
}

// placeBreakpoints marks the stable prefix for Anthropic's prompt cache:
// the last tool (caches every tool), the last system block (tools and
// system), and the last block of each of the last two user messages (the
// conversation up to the previous and the current request). The cache is
// keyed on content, not on where the markers sit, so moving the two
// message markers forward each turn still reads what the last request
// wrote.
func (w *wireRequest) placeBreakpoints() {
	if len(w.Tools) > 0 {
		w.Tools[len(w.Tools)-1].CacheControl = ephemeral
	}
	if len(w.System) > 0 {
		w.System[len(w.System)-1].CacheControl = ephemeral
	}
	users := 0
	for i := len(w.Messages) - 1; i >= 0 && users < maxBreakpoints-2; i-- {
		if m := &w.Messages[i]; m.Role == "user" {
			m.Content[len(m.Content)-1].CacheControl = ephemeral
			users++
		}
	}
}

// marshal is json.Marshal without HTML escaping (prompts are full of < and
// &) and without the encoder's trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
