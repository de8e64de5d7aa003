package session

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

// The event decoder is typed: each field is read straight into the item
// it belongs to from jsontext tokens (read.go); payloads are decoded by
// kind. No generic maps are built.

type wireHeader struct {
	Version      json.RawMessage `json:"version"`
	ID           json.RawMessage `json:"id"`
	SystemPrompt json.RawMessage `json:"system_prompt"`
}

func missing(field string) error { return fmt.Errorf("missing field `%s`", field) }

// ParseEvent decodes one event line (without its newline).
func ParseEvent(line []byte) (Event, error) {
	return new(lineReader).parseEvent(line)
}

// parseEvent decodes one event line with r's decoder.
func (r *lineReader) parseEvent(line []byte) (Event, error) {
	d := r.start(line)
	var (
		seq     *int
		ts      []byte
		kind    *string
		payload []byte
		hasItem bool
	)
	err := readObject(d, func(key []byte) (err error) {
		switch string(key) {
		case "sequence":
			seq, err = readOptInt(d, "sequence")
			return err
		case "ts":
			ts = nil
			if isNull, err := readNull(d); isNull || err != nil {
				return err
			}
			if ts, err = readNumber(d); err == nil {
				ts = inLine(line, d, ts)
			}
			return err
		case "item":
			kind, payload, hasItem = nil, nil, false
			if isNull, err := readNull(d); isNull || err != nil {
				return err
			}
			hasItem = true
			return readObject(d, func(key []byte) (err error) {
				switch string(key) {
				case "kind":
					kind, err = readOptStr(d)
				case "payload":
					// Decoded once the kind is known.
					if payload, err = d.ReadValue(); err == nil {
						payload = inLine(line, d, payload)
					}
				default:
					err = skipValue(d)
				}
				return err
			})
		}
		return skipValue(d)
	})
	if err == nil {
		err = atEnd(d)
	}
	if err != nil {
		return Event{}, err
	}
	switch {
	case seq == nil:
		return Event{}, missing("sequence")
	case ts == nil:
		return Event{}, missing("ts")
	case !hasItem:
		return Event{}, missing("item")
	case kind == nil:
		return Event{}, missing("kind")
	case payload == nil:
		return Event{}, missing("payload")
	}
	stamp, err := parseTS(ts)
	if err != nil {
		return Event{}, err
	}
	item, err := decodeItem(r.start(payload), *kind)
	if err != nil {
		return Event{}, err
	}
	return Event{Sequence: *seq, TS: stamp, Item: item}, nil
}

// inLine returns the bytes of v, the value d just read from line, as a
// slice of line itself: the decoder's view is only valid until its next
// read, line outlives it.
func inLine(line []byte, d *jsontext.Decoder, v []byte) []byte {
	end := int(d.InputOffset())
	return line[end-len(v) : end]
}

// parseTS accepts an integral JSON number; older builds typed ts as a
// double but always wrote integral values.
func parseTS(tok []byte) (int64, error) {
	s := string(tok)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return int64(f), nil
	}
	return 0, fmt.Errorf("invalid ts %s: want integral unix milliseconds", s)
}

// payloadFields reads a payload object, handing each key to field.
func payloadFields(d *jsontext.Decoder, kind string, field func(key []byte) error) error {
	if d.PeekKind() != '{' {
		return fmt.Errorf("%s payload must be an object", kind)
	}
	return readObject(d, field)
}

// optContent reads content or null (nil, false).
func optContent(d *jsontext.Decoder) (protocol.Content, bool, error) {
	if isNull, err := readNull(d); isNull || err != nil {
		return nil, false, err
	}
	c, err := readContent(d)
	return c, err == nil, err
}

// readToolCalls reads an array of tool calls, or null (nil, false).
func readToolCalls(d *jsontext.Decoder) ([]chat.ToolCall, bool, error) {
	if isNull, err := readNull(d); isNull || err != nil {
		return nil, false, err
	}
	calls := []chat.ToolCall{}
	err := readArray(d, func() error {
		c, err := readToolCall(d)
		calls = append(calls, c)
		return err
	})
	return calls, true, err
}

func readToolCall(d *jsontext.Decoder) (chat.ToolCall, error) {
	var id, name, args *string
	err := readObject(d, func(key []byte) (err error) {
		switch string(key) {
		case "id":
			id, err = readOptStr(d)
		case "name":
			name, err = readOptStr(d)
		case "arguments":
			args, err = readOptStr(d)
		default:
			err = skipValue(d)
		}
		return err
	})
	switch {
	case err != nil:
		return chat.ToolCall{}, err
	case id == nil:
		return chat.ToolCall{}, missing("id")
	case name == nil:
		return chat.ToolCall{}, missing("name")
	case args == nil:
		return chat.ToolCall{}, missing("arguments")
	}
	return chat.ToolCall{ID: *id, Name: *name, Arguments: *args}, nil
}

func readUsage(d *jsontext.Decoder) (*protocol.Usage, error) {
	usageFields := [5]string{"prompt_tokens", "completion_tokens", "total_tokens", "prompt_cache_hit_tokens", "prompt_cache_miss_tokens"}
	var v [5]int
	var seen [5]bool
	err := readObject(d, func(key []byte) error {
		for i, name := range usageFields {
			if string(key) == name {
				if isNull, err := readNull(d); isNull || err != nil {
					seen[i] = false
					return err
				}
				n, err := readInt(d, name)
				v[i], seen[i] = n, true
				return err
			}
		}
		return skipValue(d)
	})
	if err != nil {
		return nil, err
	}
	for i, ok := range seen {
		if !ok {
			return nil, missing(usageFields[i])
		}
	}
	return &protocol.Usage{PromptTokens: v[0], CompletionTokens: v[1], TotalTokens: v[2], PromptCacheHitTokens: v[3], PromptCacheMissTokens: v[4]}, nil
}

// readOptUsage reads a usage object, or null (nil).
func readOptUsage(d *jsontext.Decoder) (*protocol.Usage, error) {
	if isNull, err := readNull(d); isNull || err != nil {
		return nil, err
	}
	return readUsage(d)
}

// readRawOrNull reads one value verbatim; null is nil.
func readRawOrNull(d *jsontext.Decoder) ([]byte, error) {
	raw, err := readRaw(d)
	if string(raw) == "null" {
		return nil, err
	}
	return raw, err
}

// decodeTerminal reads both the newest encoding and the legacy forms that
// smuggled a context yield or step exhaustion through finished/failed.
func decodeTerminal(d *jsontext.Decoder) (Item, error) {
	var kindText, message *string
	var verbatim *bool
	err := payloadFields(d, KindTerminal, func(key []byte) (err error) {
		switch string(key) {
		case "kind":
			kindText, err = readOptStr(d)
		case "message":
			message, err = readOptStr(d)
		case "verbatim":
			verbatim = nil
			if isNull, err := readNull(d); isNull || err != nil {
				return err
			}
			var v bool
			if v, err = readBool(d); err != nil {
				return fmt.Errorf("verbatim must be a boolean: %w", err)
			}
			verbatim = &v
		default:
			err = skipValue(d)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if kindText == nil {
		return nil, missing("kind")
	}
	kind := TerminalKind(*kindText)
	switch kind {
	case MaxStepsExhausted:
		return &Terminal{Kind: kind}, nil
	case Finished, ContextYield, Aborted, Interrupted, Failed:
	default:
		return nil, fmt.Errorf("unknown terminal kind: %s", kind)
	}
	if message == nil {
		return nil, missing("message")
	}
	t := &Terminal{Kind: kind, Message: *message}
	if verbatim == nil {
		switch {
		case kind == Finished && strings.HasPrefix(t.Message, ContextCeilingPrefix):
			t.Kind, t.Legacy = ContextYield, true
		case kind == Failed && t.Message == MaxStepsText:
			t.Kind, t.Message, t.Legacy = MaxStepsExhausted, "", true
		}
	}
	return t, nil
}

// readContent reads content as a bare string (one text part) or an array
// of text/image parts.
func readContent(d *jsontext.Decoder) (protocol.Content, error) {
	switch d.PeekKind() {
	case '"':
		v, err := readStr(d)
		if err != nil {
			return nil, err
		}
		return protocol.Text(v), nil
	case '[':
		c := protocol.Content{}
		err := readArray(d, func() error {
			p, err := readPart(d)
			c = append(c, p)
			return err
		})
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	return nil, errors.New("content must be a string or an array of parts")
}

func readPart(d *jsontext.Decoder) (protocol.Part, error) {
	var typ, text, media, data *string
	err := readObject(d, func(key []byte) (err error) {
		switch string(key) {
		case "type":
			typ, err = readOptStr(d)
		case "text":
			text, err = readOptStr(d)
		case "media_type":
			media, err = readOptStr(d)
		case "data":
			data, err = readOptStr(d)
		default:
			err = skipValue(d)
		}
		return err
	})
	if err != nil {
		return protocol.Part{}, err
	}
	if typ == nil {
		return protocol.Part{}, missing("type")
	}
	switch *typ {
	case "text":
		if text == nil {
			return protocol.Part{}, missing("text")
		}
		return protocol.Part{Type: "text", Text: *text}, nil
	case "image":
		if media == nil {
			return protocol.Part{}, missing("media_type")
		}
		if data == nil {
			return protocol.Part{}, missing("data")
		}
		raw, err := base64.StdEncoding.DecodeString(*data)
		if err != nil {
			return protocol.Part{}, fmt.Errorf("image part data: %w", err)
		}
		return protocol.Part{Type: "image", MediaType: *media, Data: raw}, nil
	}
	return protocol.Part{}, fmt.Errorf("unknown content part type: %s", *typ)
}

// decodeContent decodes a standalone content value.
func decodeContent(raw []byte) (protocol.Content, error) {
	d := new(lineReader).start(raw)
	c, err := readContent(d)
	if err == nil {
		err = atEnd(d)
	}
	return c, err
}

// parseHeader classifies and decodes the first line (reference §2.1).
func parseHeader(id string, line []byte) (string, error) {
	var h wireHeader
	if err := json.Unmarshal(line, &h); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || !json.Valid(line) {
			return "", fmt.Errorf("session file for %s does not start with a header line: %w", id, err)
		}
		return "", fmt.Errorf("session file for %s does not start with a header record", id)
	}
	if isNumber(h.Version) {
		if v, err := strconv.ParseFloat(string(h.Version), 64); err != nil || v != Version {
			return "", fmt.Errorf("session file for %s uses unsupported session file version %s; this build reads version 1", id, h.Version)
		}
		var hid, prompt string
		if isString(h.ID) && isString(h.SystemPrompt) &&
			json.Unmarshal(h.ID, &hid) == nil && json.Unmarshal(h.SystemPrompt, &prompt) == nil {
			if hid != id {
				return "", fmt.Errorf("session header id mismatch: requested %s, found %s", id, hid)
			}
			return prompt, nil
		}
	}
	return "", fmt.Errorf("session file for %s does not start with a header record", id)
}

func isNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

func isString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

// isBlank reports whether a line holds only JSON whitespace.
func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// Parse decodes the bytes of a session file (as Store.Load reads them)
// for session id: for readers that hold the bytes themselves, such as an
// export that redacts them first.
func Parse(id string, data []byte) (*Session, error) { return parseFile(id, data) }

// parseFile decodes a whole session file. The only tolerated defect is an
// unterminated final line: kept if it decodes, dropped if not, and either
// way the session is flagged for tail repair. Anything else that fails to
// decode is interior corruption and fails the load.
func parseFile(id string, data []byte) (*Session, error) {
	torn := len(data) == 0 || data[len(data)-1] != '\n'
	header, rest, _ := bytes.Cut(data, []byte{'\n'})
	prompt, err := parseHeader(id, header)
	if err != nil {
		return nil, err
	}
	events, err := decodeLines(id, splitLines(rest), torn)
	if err != nil {
		return nil, err
	}
	return &Session{ID: id, SystemPrompt: prompt, Events: events, tornTail: torn}, nil
}

// splitLines splits the event part of a file into lines (the final element
// is the unterminated tail, possibly empty).
func splitLines(rest []byte) [][]byte {
	lines := make([][]byte, 0, bytes.Count(rest, []byte{'\n'})+1)
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return append(lines, rest)
		}
		lines = append(lines, rest[:i])
		rest = rest[i+1:]
	}
}
