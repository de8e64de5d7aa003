package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/protocol"
)

// wireRequest is the chat-completions request body. Field order is fixed so
// that the same conversation always encodes to the same bytes, which keeps
// the vendors' prompt caches warm.
type wireRequest struct {
	Model         string        `json:"model"`
	Messages      []wireMessage `json:"messages"`
	Tools         []wireTool    `json:"tools,omitempty"`
	MaxTokens     int           `json:"max_tokens,omitempty"`
	Stream        bool          `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

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

// encodeRequest builds the request body: the typed fields, then the
// thinking fields, then cfg.ExtraBody, later keys overriding earlier ones.
func encodeRequest(req llm.Request, extra map[string]any) ([]byte, error) {
	w := wireRequest{Model: req.Model, MaxTokens: req.MaxTokens, Stream: true}
	w.StreamOptions.IncludeUsage = true
	w.Messages = make([]wireMessage, 0, len(req.Messages))
	for i, m := range req.Messages {
		wm, err := encodeMessage(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		w.Messages = append(w.Messages, wm)
	}
	for _, t := range req.Tools {
		var wt wireTool
		wt.Type = "function"
		wt.Function.Name = t.Name
		wt.Function.Description = t.Description
		wt.Function.Parameters = t.Parameters
		if len(bytes.TrimSpace(t.Parameters)) == 0 {
			wt.Function.Parameters = emptySchema
		}
		w.Tools = append(w.Tools, wt)
	}
	body, err := marshal(w)
	if err != nil {
		return nil, err
	}
	if len(extra) == 0 {
		return body, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	for k, v := range extra {
		raw, err := marshal(v)
		if err != nil {
			return nil, fmt.Errorf("extra body field %q: %w", k, err)
		}
		top[k] = raw
	}
	return marshal(top)
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
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
