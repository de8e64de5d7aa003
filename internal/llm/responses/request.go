package responses

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/protocol"
)

// cacheKey is this adapter's key in an llm.PrefixCache.
type cacheKey struct{}

// prefixState is what the adapter keeps in an llm.PrefixCache: the
// encoded input items of the stable messages after the leading system
// messages (which become the instructions).
type prefixState struct {
	lead  int     // leading system messages
	seen  int     // messages taken in: those from lead on have their items in items
	items llm.Run // every item as json.Marshal writes it
}

// The request body is, with its keys in this order: instructions (when
// there are any), max_output_tokens (when set), store, include, input,
// model (when set), reasoning (when a mode is asked for), tools (when
// there are any), stream. Every value is encoded as json.Marshal writes
// it, so that the body is byte for byte what openai-go's ResponseNewParams
// marshalled to (its fields in declaration order, maps with sorted keys,
// HTML characters escaped); a test holds the two equal. The input items
// are encoded one by one (with req.Cache, only those not kept yet) and
// joined in place.

// inputMessage is an easy input message: content is a string (an
// assistant's text) or a list of inputText and inputImage parts.
type inputMessage struct {
	Content any    `json:"content"`
	Role    string `json:"role"`
}

type inputText struct {
	Text string `json:"text"`
	Type string `json:"type"` // input_text
}

type inputImage struct {
	Detail   string `json:"detail,omitempty"` // auto in a message, absent in a call's output
	ImageURL string `json:"image_url"`
	Type     string `json:"type"` // input_image
}

type functionCall struct {
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Type      string `json:"type"` // function_call
}

type functionCallOutput struct {
	Output any    `json:"output"` // a string, or a list of inputText and inputImage parts
	CallID string `json:"call_id"`
	Type   string `json:"type"` // function_call_output
}

type functionTool struct {
	Strict      bool                       `json:"strict"`
	Parameters  map[string]json.RawMessage `json:"parameters"`
	Name        string                     `json:"name"`
	Description string                     `json:"description,omitempty"`
	Type        string                     `json:"type"` // function
}

type reasoningParam struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

// emptySchema stands in for a tool without parameters.
var emptySchema = map[string]json.RawMessage{"type": json.RawMessage(`"object"`), "properties": json.RawMessage(`{}`)}

// encodeRequest builds the request body, reusing and extending the
// encoded items kept in req.Cache when there is one.
func encodeRequest(req llm.Request) (llm.Body, error) {
	if req.Cache == nil {
		return encodeBody(req, nil)
	}
	var body llm.Body
	var err error
	req.Cache.Update(cacheKey{}, func(v any) any {
		st, _ := v.(*prefixState)
		if st == nil {
			st = &prefixState{}
		}
		body, err = encodeBody(req, st)
		return st
	})
	return body, err
}

// encodeBody writes the body, reusing and extending st when it is not nil.
func encodeBody(req llm.Request, st *prefixState) (llm.Body, error) {
	instructions, lead := leadingSystem(req.Messages)
	stable := min(req.Stable, len(req.Messages))
	if st != nil && (st.lead != lead || st.seen < lead || stable < st.seen) {
		// Not a continuation of what st took in: start it afresh.
		*st = prefixState{lead: lead, seen: lead}
	}
	var input llm.Array
	from := lead
	if st != nil {
		for i := st.seen; i < stable; i++ {
			items, err := encodeItems(req.Messages[i], i)
			if err != nil {
				return llm.Body{}, err
			}
			for _, it := range items {
				st.items.Push(it)
			}
			st.seen = i + 1
		}
		input.AddRun(st.items.Slice(0, st.items.Len()))
		from = max(st.seen, lead)
	}
	for i := from; i < len(req.Messages); i++ {
		items, err := encodeItems(req.Messages[i], i)
		if err != nil {
			return llm.Body{}, err
		}
		for _, it := range items {
			input.Add(it)
		}
	}
	return encodeParams(req, instructions, &input)
}

// encodeParams writes the body around the encoded input items.
func encodeParams(req llm.Request, instructions string, input *llm.Array) (llm.Body, error) {
	members := make([]llm.Member, 0, 9)
	add := func(key string, v any) error {
		raw, err := json.Marshal(v)
		members = append(members, llm.Member{Key: key, Value: raw})
		return err
	}
	if instructions != "" {
		if err := add("instructions", instructions); err != nil {
			return llm.Body{}, err
		}
	}
	if req.MaxTokens > 0 {
		members = append(members, llm.Member{Key: "max_output_tokens", Value: strconv.AppendInt(nil, int64(req.MaxTokens), 10)})
	}
	members = append(members,
		llm.Member{Key: "store", Value: []byte("false")},
		llm.Member{Key: "include", Value: []byte(`["reasoning.encrypted_content"]`)},
		llm.Member{Key: "input", Array: input})
	if req.Model != "" {
		if err := add("model", req.Model); err != nil {
			return llm.Body{}, err
		}
	}
	if effort, ok := effortFor(req.Thinking); ok {
		if err := add("reasoning", reasoningParam{Effort: effort, Summary: "auto"}); err != nil {
			return llm.Body{}, err
		}
	}
	if len(req.Tools) > 0 {
		tools := make([]functionTool, 0, len(req.Tools))
		for _, t := range req.Tools {
			schema, err := decodeSchema(t.Parameters)
			if err != nil {
				return llm.Body{}, fmt.Errorf("tool %s parameters: %w", t.Name, err)
			}
			tools = append(tools, functionTool{Parameters: schema, Name: t.Name, Description: t.Description, Type: "function"})
		}
		if err := add("tools", tools); err != nil {
			return llm.Body{}, err
		}
	}
	members = append(members, llm.Member{Key: "stream", Value: []byte("true")})
	return llm.WriteObject(members)
}

// leadingSystem joins the leading system messages into the instructions
// and counts them.
func leadingSystem(msgs []chat.Message) (string, int) {
	var instructions []byte
	i := 0
	for ; i < len(msgs) && msgs[i].Role == chat.System; i++ {
		if len(instructions) > 0 {
			instructions = append(instructions, "\n\n"...)
		}
		instructions = append(instructions, msgs[i].Text()...)
	}
	return string(instructions), i
}

// encodeItems is message i's input items, each as json.Marshal writes it.
func encodeItems(m chat.Message, i int) ([][]byte, error) {
	items, err := appendMessage(nil, m)
	if err != nil {
		return nil, fmt.Errorf("message %d: %w", i, err)
	}
	out := make([][]byte, len(items))
	for j, it := range items {
		if out[j], err = json.Marshal(it); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	return out, nil
}

// effortFor maps llm.Request.Thinking to a reasoning effort; ok is false
// for "" (the model's default) and unknown modes.
func effortFor(mode string) (string, bool) {
	switch mode {
	case "no":
		return "minimal", true
	case "high":
		return "medium", true
	case "max":
		return "high", true
	}
	return "", false
}

// decodeSchema splits a JSON schema into its top-level members, each kept
// as raw JSON so that the schema is sent as written (its members in
// sorted order, each compacted); empty means an object with no
// properties.
func decodeSchema(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return emptySchema, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, fmt.Errorf("schema is null, want an object")
	}
	return top, nil
}

// appendMessage appends m's input items, each a value json.Marshal
// encodes.
func appendMessage(items []any, m chat.Message) ([]any, error) {
	switch m.Role {
	case chat.System, chat.User:
		role := "user"
		if m.Role == chat.System {
			role = "developer"
		}
		items = append(items, inputMessage{Content: contentParts(m.Content, "auto"), Role: role})
	case chat.Assistant:
		reasoning, err := reasoningItems(m.ReasoningItems)
		if err != nil {
			return nil, err
		}
		items = append(items, reasoning...)
		if text := m.Text(); text != "" {
			items = append(items, inputMessage{Content: text, Role: "assistant"})
		}
		for _, c := range m.ToolCalls {
			items = append(items, functionCall{Arguments: c.Arguments, CallID: c.ID, Name: c.Name, Type: "function_call"})
		}
	case chat.Tool:
		var out any
		if m.Content.IsTextOnly() {
			out = m.Text()
		} else {
			out = contentParts(m.Content, "")
		}
		items = append(items, functionCallOutput{Output: out, CallID: m.ToolCallID, Type: "function_call_output"})
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	return items, nil
}

// reasoningItems replays the opaque reasoning items of an assistant
// message verbatim, one input item per array element.
func reasoningItems(raw json.RawMessage) ([]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("reasoning items are not a JSON array: %w", err)
	}
	out := make([]any, 0, len(elems))
	for _, e := range elems {
		out = append(out, e)
	}
	return out, nil
}

func dataURL(p protocol.Part) string {
	return "data:" + p.MediaType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

// contentParts is c as input_text and input_image parts, images with the
// given detail.
func contentParts(c protocol.Content, detail string) []any {
	out := make([]any, 0, len(c))
	for _, p := range c {
		if p.Type == "image" {
			out = append(out, inputImage{Detail: detail, ImageURL: dataURL(p), Type: "input_image"})
			continue
		}
		out = append(out, inputText{Text: p.Text, Type: "input_text"})
	}
	return out
}
