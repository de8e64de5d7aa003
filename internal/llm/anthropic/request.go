package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

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

// cacheKey is this adapter's key in an llm.PrefixCache.
type cacheKey struct{}

// prefixState is what the adapter keeps in an llm.PrefixCache: the
// stable messages turned into wire messages (the last of which a later
// message may still merge into), the encoding of those that are closed,
// without cache_control, and the encoded tool list.
type prefixState struct {
	seen   int // stable chat messages taken in
	system []wireBlock
	msgs   []wireMessage
	enc    llm.Run // encodings of msgs[:enc.Len()]
	tools  []byte  // nil until encoded
}

// encodeRequest builds the request body. budget is from ThinkingBudget
// (<0 none, 0 disabled, >0 enabled); maxTokens is already defaulted.
// With req.Cache it encodes only the messages it has not kept yet.
func encodeRequest(req llm.Request, maxTokens, budget int) (llm.Body, error) {
	if req.Cache == nil {
		return encodeBody(req, maxTokens, budget, &prefixState{}, 0)
	}
	var body llm.Body
	var err error
	req.Cache.Update(cacheKey{}, func(v any) any {
		st, _ := v.(*prefixState)
		if st == nil || req.Stable < st.seen {
			// A request that does not repeat all st took in (which the
			// cache's contract rules out) is encoded afresh.
			st = &prefixState{}
		}
		body, err = encodeBody(req, maxTokens, budget, st, min(req.Stable, len(req.Messages)))
		if err != nil {
			st = nil // it may be half updated
		}
		return st
	})
	return body, err
}

// encodeBody writes the body: the first stable messages are taken into
// st (which keeps them for the next request), the rest are this
// request's own.
func encodeBody(req llm.Request, maxTokens, budget int, st *prefixState, stable int) (llm.Body, error) {
	grow := wireRequest{System: st.system, Messages: st.msgs}
	for i := st.seen; i < stable; i++ {
		if err := grow.add(req.Messages[i]); err != nil {
			return llm.Body{}, fmt.Errorf("message %d: %w", i, err)
		}
	}
	st.system, st.msgs, st.seen = grow.System, grow.Messages, stable

	// This request's wire messages are st's closed ones, then a copy of
	// st's last one and what the rest of the messages add to it.
	w := wireRequest{Model: req.Model, MaxTokens: maxTokens, Stream: true, System: slices.Clone(st.system)}
	closed := max(len(st.msgs)-1, 0)
	if len(st.msgs) > 0 {
		last := st.msgs[closed]
		last.Content = slices.Clone(last.Content)
		w.Messages = []wireMessage{last}
	}
	for i := stable; i < len(req.Messages); i++ {
		if err := w.add(req.Messages[i]); err != nil {
			return llm.Body{}, fmt.Errorf("message %d: %w", i, err)
		}
	}
	msgs := messageList{closed: st.msgs[:closed], own: w.Messages}

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
	if w.Thinking != nil && w.Thinking.Type == "enabled" && msgs.continuesUnsignedToolUse() {
		// With thinking on, the API rejects a tool-use turn being continued
		// unless it starts with its signed thinking block. Without the
		// signature (a history that did not keep it), this step goes
		// without thinking rather than fail.
		w.Thinking = &wireThinking{Type: "disabled"}
	}

	// Anthropic's prompt cache: breakpoints on the last tool (it caches
	// every tool, see encodeTools), the last system block (tools and
	// system) and the last block of each of the last two user messages
	// (the conversation up to the previous and the current request).
	if len(w.System) > 0 {
		w.System[len(w.System)-1].CacheControl = ephemeral
	}
	marked := msgs.markLastUsers(maxBreakpoints - 2)

	arr, err := encodeMessages(st, msgs, marked)
	if err != nil {
		return llm.Body{}, err
	}
	if st.tools == nil && len(req.Tools) > 0 {
		if st.tools, err = encodeTools(req.Tools); err != nil {
			return llm.Body{}, err
		}
	}
	model, err := marshal(req.Model)
	if err != nil {
		return llm.Body{}, err
	}
	members := make([]llm.Member, 0, 7)
	members = append(members, llm.Member{Key: "model", Value: model},
		llm.Member{Key: "max_tokens", Value: strconv.AppendInt(nil, int64(w.MaxTokens), 10)})
	if len(w.System) > 0 {
		system, err := marshal(w.System)
		if err != nil {
			return llm.Body{}, err
		}
		members = append(members, llm.Member{Key: "system", Value: system})
	}
	if msgs.len() == 0 {
		members = append(members, llm.Member{Key: "messages", Value: []byte("null")}) // as encoding/json writes a nil slice
	} else {
		members = append(members, llm.Member{Key: "messages", Array: arr})
	}
	if len(req.Tools) > 0 {
		members = append(members, llm.Member{Key: "tools", Value: st.tools})
	}
	if w.Thinking != nil {
		thinking, err := marshal(w.Thinking)
		if err != nil {
			return llm.Body{}, err
		}
		members = append(members, llm.Member{Key: "thinking", Value: thinking})
	}
	members = append(members, llm.Member{Key: "stream", Value: []byte("true")})
	return llm.WriteObject(members)
}

// encodeTools is the tool list with a cache breakpoint on the last tool.
func encodeTools(specs []llm.ToolSpec) ([]byte, error) {
	tools := make([]wireTool, 0, len(specs))
	for _, t := range specs {
		wt := wireTool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters}
		if len(bytes.TrimSpace(t.Parameters)) == 0 {
			wt.InputSchema = emptySchema
		}
		tools = append(tools, wt)
	}
	tools[len(tools)-1].CacheControl = ephemeral
	return marshal(tools)
}

// encodeMessages is the messages array: the closed messages from st's
// kept encodings (encoding those it lacks), except the marked ones, which
// carry a breakpoint and are encoded with it, then the request's own.
func encodeMessages(st *prefixState, msgs messageList, marked []int) (*llm.Array, error) {
	for i := st.enc.Len(); i < len(msgs.closed); i++ {
		enc, err := marshal(msgs.closed[i])
		if err != nil {
			return nil, err
		}
		st.enc.Push(enc)
	}
	var a llm.Array
	from := 0
	for j := len(marked) - 1; j >= 0; j-- { // marked is newest first
		i := marked[j]
		m := msgs.closed[i]
		m.Content = slices.Clone(m.Content)
		m.Content[len(m.Content)-1].CacheControl = ephemeral
		enc, err := marshal(m)
		if err != nil {
			return nil, err
		}
		a.AddRun(st.enc.Slice(from, i))
		a.Add(enc)
		from = i + 1
	}
	a.AddRun(st.enc.Slice(from, len(msgs.closed)))
	for _, m := range msgs.own {
		enc, err := marshal(m)
		if err != nil {
			return nil, err
		}
		a.Add(enc)
	}
	return &a, nil
}

// messageList is a request's wire messages: closed (shared with the
// cache, never modified) followed by own (the request's).
type messageList struct {
	closed, own []wireMessage
}

func (l messageList) len() int { return len(l.closed) + len(l.own) }

func (l messageList) at(i int) *wireMessage {
	if i < len(l.closed) {
		return &l.closed[i]
	}
	return &l.own[i-len(l.closed)]
}

// continuesUnsignedToolUse reports whether the request answers tool calls
// of an assistant message that has no thinking block.
func (l messageList) continuesUnsignedToolUse() bool {
	n := l.len()
	if n < 2 {
		return false
	}
	last, prev := l.at(n-1), l.at(n-2)
	if last.Role != "user" || last.Content[0].Type != "tool_result" {
		return false
	}
	return prev.Role == "assistant" && prev.Content[0].Type != "thinking"
}

// markLastUsers puts a cache breakpoint on the last block of each of the
// last n user messages: on the request's own messages directly; the
// indices of closed ones it returns, newest first, for encodeMessages to
// mark on a copy. The cache is keyed on content, not on where the markers
// sit, so moving them forward each turn still reads what the last
// request wrote.
func (l messageList) markLastUsers(n int) []int {
	var closed []int
	users := 0
	for i := l.len() - 1; i >= 0 && users < n; i-- {
		m := l.at(i)
		if m.Role != "user" {
			continue
		}
		users++
		if i < len(l.closed) {
			closed = append(closed, i)
		} else {
			m.Content[len(m.Content)-1].CacheControl = ephemeral
		}
	}
	return closed
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

// marshal is json.Marshal without HTML escaping (prompts are full of < and
// &) and without the encoder's trailing newline.
func marshal(v any) ([]byte, error) { return llm.Marshal(v) }
