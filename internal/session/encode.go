package session

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/openseek/openseek/internal/chat"
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

// appendToolCalls writes an assistant's tool calls as an array.
func appendToolCalls(b []byte, calls []chat.ToolCall) []byte {
	b = append(b, '[')
	for i, c := range calls {
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
	return append(b, ']')
}

// appendUsage writes a usage object, its keys in the reference's order.
func appendUsage(b []byte, u *protocol.Usage) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	b = append(b, `,"prompt_cache_hit_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptCacheHitTokens), 10)
	b = append(b, `,"prompt_cache_miss_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptCacheMissTokens), 10)
	return append(b, '}')
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
