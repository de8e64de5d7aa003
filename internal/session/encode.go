package session

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/openseek/openseek/protocol"
)

// The encoder is hand-written so the bytes are exactly the reference's:
// keys in table order, optional fields omitted, no HTML escaping, tool
// result data verbatim.

// MarshalEvent encodes an event as one log line, without the newline.
func MarshalEvent(e Event) []byte {
	return appendEvent(make([]byte, 0, 256), e)
}

func appendEvent(b []byte, e Event) []byte {
	b = append(b, `{"sequence":`...)
	b = strconv.AppendInt(b, int64(e.Sequence), 10)
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, e.TS, 10)
	b = append(b, `,"item":{"kind":`...)
	kind := ""
	if e.Item != nil {
		kind = e.Item.ItemKind()
	}
	b = appendString(b, kind)
	b = append(b, `,"payload":`...)
	b = appendPayload(b, e.Item)
	return append(b, "}}"...)
}

func appendPayload(b []byte, item Item) []byte {
	switch it := item.(type) {
	case *User:
		b = append(b, `{"content":`...)
		b = appendContent(b, it.Content)
		if it.SubmissionID != nil {
			b = append(b, `,"submission_id":`...)
			b = appendString(b, *it.SubmissionID)
		}
		return append(b, '}')
	case *Assistant:
		b = append(b, `{"content":`...)
		b = appendString(b, it.Content)
		b = append(b, `,"tool_calls":[`...)
		for i, c := range it.ToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = appendString(b, c.ID)
			b = append(b, `,"name":`...)
			b = appendString(b, c.Name)
			b = append(b, `,"arguments":`...)
			b = appendString(b, c.Arguments)
			b = append(b, '}')
		}
		b = append(b, ']')
		if it.Reasoning != nil {
			b = append(b, `,"reasoning_content":`...)
			b = appendString(b, *it.Reasoning)
		}
		if it.IsReplay {
			b = append(b, `,"is_replay":true`...)
		}
		if u := it.Usage; u != nil {
			b = append(b, `,"usage":{"prompt_tokens":`...)
			b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
			b = append(b, `,"completion_tokens":`...)
			b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
			b = append(b, `,"total_tokens":`...)
			b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
			b = append(b, `,"prompt_cache_hit_tokens":`...)
			b = strconv.AppendInt(b, int64(u.PromptCacheHitTokens), 10)
			b = append(b, `,"prompt_cache_miss_tokens":`...)
			b = strconv.AppendInt(b, int64(u.PromptCacheMissTokens), 10)
			b = append(b, '}')
		}
		if it.Model != "" {
			b = append(b, `,"model":`...)
			b = appendString(b, it.Model)
		}
		if it.CostUSD != nil {
			b = append(b, `,"cost_usd":`...)
			b = strconv.AppendFloat(b, *it.CostUSD, 'g', -1, 64)
		}
		if it.ReasoningSignature != "" {
			b = append(b, `,"reasoning_signature":`...)
			b = appendString(b, it.ReasoningSignature)
		}
		if it.ReasoningItems != nil {
			b = append(b, `,"reasoning_items":`...)
			b = append(b, it.ReasoningItems...)
		}
		return append(b, '}')
	case *ToolResult:
		b = append(b, `{"tool_call_id":`...)
		b = appendString(b, it.ToolCallID)
		b = append(b, `,"tool_name":`...)
		b = appendString(b, it.ToolName)
		b = append(b, `,"content":`...)
		b = appendContent(b, it.Content)
		b = append(b, `,"is_error":`...)
		b = strconv.AppendBool(b, it.IsError)
		if it.Brief != nil {
			b = append(b, `,"brief":`...)
			b = appendString(b, *it.Brief)
		}
		if it.Data != nil {
			b = append(b, `,"data":`...)
			b = append(b, it.Data...)
		}
		if it.Parent != "" {
			b = append(b, `,"parent":`...)
			b = appendString(b, it.Parent)
		}
		if it.Arguments != "" {
			b = append(b, `,"arguments":`...)
			b = appendString(b, it.Arguments)
		}
		return append(b, '}')
	case *Notice:
		b = append(b, `{"content":`...)
		b = appendString(b, it.Content)
		return append(b, '}')
	case *Summary:
		b = append(b, `{"content":`...)
		b = appendString(b, it.Content)
		b = append(b, `,"from_sequence":`...)
		b = strconv.AppendInt(b, int64(it.From), 10)
		b = append(b, `,"to_sequence":`...)
		b = strconv.AppendInt(b, int64(it.To), 10)
		return append(b, '}')
	case *Terminal:
		return appendTerminal(b, it)
	}
	return append(b, "{}"...)
}

func appendTerminal(b []byte, t *Terminal) []byte {
	kind, msg, hasMsg, verbatim := t.Kind, t.Message, true, false
	switch t.Kind {
	case ContextYield:
		if t.Legacy && strings.HasPrefix(msg, ContextCeilingPrefix) {
			kind = Finished
		}
	case MaxStepsExhausted:
		if t.Legacy {
			kind, msg = Failed, MaxStepsText
		} else {
			hasMsg = false
		}
	case Finished:
		verbatim = strings.HasPrefix(msg, ContextCeilingPrefix)
	case Failed:
		verbatim = msg == MaxStepsText
	}
	b = append(b, `{"kind":`...)
	b = appendString(b, string(kind))
	if hasMsg {
		b = append(b, `,"message":`...)
		b = appendString(b, msg)
	}
	if verbatim {
		b = append(b, `,"verbatim":true`...)
	}
	return append(b, '}')
}

// appendContent writes content as the wire does: a single text part is a
// bare string, anything else an array of parts.
func appendContent(b []byte, c protocol.Content) []byte {
	if len(c) == 1 && c[0].Type == "text" {
		return appendString(b, c[0].Text)
	}
	b = append(b, '[')
	for i, p := range c {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = appendString(b, p.Type)
		if p.Type == "image" {
			b = append(b, `,"media_type":`...)
			b = appendString(b, p.MediaType)
			b = append(b, `,"data":"`...)
			b = base64.StdEncoding.AppendEncode(b, p.Data)
			b = append(b, '"')
		} else {
			b = append(b, `,"text":`...)
			b = appendString(b, p.Text)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendString writes s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, nothing else.
func appendString(b []byte, s string) []byte { return protocol.AppendMinimalJSONString(b, s) }

// appendHeader writes the header line, without the newline.
func appendHeader(b []byte, id, systemPrompt string) []byte {
	b = append(b, `{"version":1,"id":`...)
	b = appendString(b, id)
	b = append(b, `,"system_prompt":`...)
	b = appendString(b, systemPrompt)
	return append(b, '}')
}

// encodeFile renders the whole session file: header and every event, each
// line newline-terminated.
func encodeFile(s *Session) []byte {
	b := make([]byte, 0, 64+len(s.SystemPrompt)+200*len(s.Events))
	b = appendHeader(b, s.ID, s.SystemPrompt)
	b = append(b, '\n')
	for _, e := range s.Events {
		b = appendEvent(b, e)
		b = append(b, '\n')
	}
	return b
}
