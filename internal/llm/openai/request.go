package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/protocol"
)

// The chat-completions request body is, with its keys in this order:
// model, messages, tools (when there are any), max_tokens (when set),
// stream, stream_options; then the thinking fields and cfg.ExtraBody,
// later keys overriding earlier ones, are merged in and the keys sorted.
// The same conversation always encodes to the same bytes, which keeps the
// vendors' prompt caches warm; encodeRequest writes it piece by piece so
// that the encoding of the messages can be kept between requests.

type wireMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"` // OpenRouter
	ToolCalls        []wireToolCall  `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url,omitempty"`
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// cacheKey is this adapter's key in an llm.PrefixCache.
type cacheKey struct{}

// prefixState is what the adapter keeps in an llm.PrefixCache: the wire
// encoding of the stable messages and of the tool list.
type prefixState struct {
	msgs  llm.Run
	tools []byte // nil until encoded
}

// encodeRequest builds the request body: the typed fields, then the
// thinking fields, then cfg.ExtraBody, later keys overriding earlier ones.
// With req.Cache it encodes only the messages it has not kept yet.
func encodeRequest(req llm.Request, extra map[string]any) (llm.Body, error) {
	if req.Cache == nil {
		return encodeBody(req, extra, nil)
	}
	var body llm.Body
	var err error
	req.Cache.Update(cacheKey{}, func(v any) any {
		st, _ := v.(*prefixState)
		if st == nil {
			st = &prefixState{}
		}
		body, err = encodeBody(req, extra, st)
		return st
	})
	return body, err
}

// encodeBody writes the body, reusing and extending st when it is not nil.
func encodeBody(req llm.Request, extra map[string]any, st *prefixState) (llm.Body, error) {
	model, err := marshal(req.Model)
	if err != nil {
		return llm.Body{}, err
	}
	msgs, err := encodeMessages(req, st)
	if err != nil {
		return llm.Body{}, err
	}
	var tools []byte
	if len(req.Tools) > 0 {
		if st != nil && st.tools != nil {
			tools = st.tools
		} else if tools, err = encodeTools(req.Tools); err != nil {
			return llm.Body{}, err
		} else if st != nil {
			st.tools = tools
		}
	}
	members := make([]llm.Member, 0, 6+len(extra))
	members = append(members, llm.Member{Key: "model", Value: model}, llm.Member{Key: "messages", Array: msgs})
	if tools != nil {
		members = append(members, llm.Member{Key: "tools", Value: tools})
	}
	if req.MaxTokens != 0 {
		members = append(members, llm.Member{Key: "max_tokens", Value: strconv.AppendInt(nil, int64(req.MaxTokens), 10)})
	}
	members = append(members, llm.Member{Key: "stream", Value: []byte("true")}, llm.Member{Key: "stream_options", Value: []byte(`{"include_usage":true}`)})
	if len(extra) > 0 {
		for k, v := range extra {
			raw, err := marshal(v)
			if err != nil {
				return llm.Body{}, fmt.Errorf("extra body field %q: %w", k, err)
			}
			if i := slices.IndexFunc(members, func(m llm.Member) bool { return m.Key == k }); i >= 0 {
				members[i] = llm.Member{Key: k, Value: raw}
			} else {
				members = append(members, llm.Member{Key: k, Value: raw})
			}
		}
		// A body with extras is a JSON object with sorted keys, as
		// encoding/json writes a map.
		slices.SortFunc(members, func(a, b llm.Member) int { return strings.Compare(a.Key, b.Key) })
	}
	return llm.WriteObject(members)
}

// encodeMessages is the messages array. With st, the encodings of the
// first req.Stable messages come from st, and those st lacks are added.
func encodeMessages(req llm.Request, st *prefixState) (*llm.Array, error) {
	reuse := 0
	if st != nil {
		reuse = min(req.Stable, st.msgs.Len(), len(req.Messages))
	}
	var a llm.Array
	var fresh [][]byte
	for i := reuse; i < len(req.Messages); i++ {
		wm, err := encodeMessage(req.Messages[i])
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		enc, err := marshal(wm)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		if st != nil && i < req.Stable && i == st.msgs.Len() {
			st.msgs.Push(enc)
		}
		fresh = append(fresh, enc)
	}
	if reuse > 0 {
		a.AddRun(st.msgs.Slice(0, reuse))
	}
	for _, enc := range fresh {
		a.Add(enc)
	}
	return &a, nil
}

func encodeTools(specs []llm.ToolSpec) ([]byte, error) {
	tools := make([]wireTool, 0, len(specs))
	for _, t := range specs {
		var wt wireTool
		wt.Type = "function"
		wt.Function.Name = t.Name
		wt.Function.Description = t.Description
		wt.Function.Parameters = t.Parameters
		if len(bytes.TrimSpace(t.Parameters)) == 0 {
			wt.Function.Parameters = emptySchema
		}
		tools = append(tools, wt)
	}
	return marshal(tools)
}

// mergeExtra layers the request-body knobs: thinking first, then the
// configured extras, which win.
func mergeExtra(thinking, configured map[string]any) map[string]any {
	if len(thinking) == 0 {
		return configured
	}
	out := maps.Clone(thinking)
	maps.Copy(out, configured)
	return out
}

func encodeMessage(m chat.Message) (wireMessage, error) {
	wm := wireMessage{Role: string(m.Role)}
	var err error
	switch m.Role {
	case chat.Assistant:
		// OpenRouter needs its reasoning items back to continue the
		// reasoning (Claude's signature included); other providers' items
		// are left out.
		wm.ReasoningDetails = echoDetails(m.ReasoningItems)
		if len(m.ToolCalls) > 0 {
			// DeepSeek rejects a tool-call turn whose reasoning is not sent
			// back; "" stands in for none.
			r := ""
			if m.Reasoning != nil {
				r = *m.Reasoning
			}
			wm.ReasoningContent = &r
			for _, c := range m.ToolCalls {
				var wc wireToolCall
				wc.ID, wc.Type = c.ID, "function"
				wc.Function.Name, wc.Function.Arguments = c.Name, c.Arguments
				wm.ToolCalls = append(wm.ToolCalls, wc)
			}
			if text := m.Text(); text != "" {
				wm.Content, err = marshal(text)
			}
		} else {
			wm.Content, err = marshal(m.Text())
		}
	case chat.Tool:
		wm.ToolCallID = m.ToolCallID
		wm.Content, err = encodeContent(m.Content)
	case chat.System, chat.User:
		wm.Content, err = encodeContent(m.Content)
	default:
		return wm, fmt.Errorf("unknown role %q", m.Role)
	}
	return wm, err
}

// encodeContent is a bare string for text and an array of parts (images as
// data URLs) otherwise.
func encodeContent(c protocol.Content) (json.RawMessage, error) {
	if c.IsTextOnly() {
		return marshal(c.Text())
	}
	parts := make([]wirePart, 0, len(c))
	for _, p := range c {
		switch p.Type {
		case "image":
			wp := wirePart{Type: "image_url", ImageURL: &struct {
				URL string `json:"url"`
			}{URL: "data:" + p.MediaType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)}}
			parts = append(parts, wp)
		default:
			parts = append(parts, wirePart{Type: "text", Text: p.Text})
		}
	}
	return marshal(parts)
}

// marshal is json.Marshal without HTML escaping (prompts are full of < and
// &) and without the encoder's trailing newline.
func marshal(v any) ([]byte, error) { return llm.Marshal(v) }
