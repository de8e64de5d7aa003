package protocol

import (
	"encoding/base64"
	"encoding/json"
	"errors"
)

// AppendJSON appends the wire form of c: a bare JSON string when c is
// exactly one text part, otherwise an array of part objects (text parts as
// {"type","text"}, image parts as {"type","media_type","data"} with padded
// base64 data).
func (c Content) AppendJSON(b []byte) []byte {
	if len(c) == 1 && c[0].Type == "text" {
		return appendString(b, c[0].Text)
	}
	b = append(b, '[')
	for i, p := range c {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = appendStrField(b, "type", p.Type)
		switch p.Type {
		case "text":
			b = appendStrField(b, "text", p.Text)
		case "image":
			b = appendStrField(b, "media_type", p.MediaType)
			b = appendKey(b, "data")
			b = append(b, '"')
			b = base64.StdEncoding.AppendEncode(b, p.Data)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// MarshalJSON implements json.Marshaler with the wire form (AppendJSON).
// Note that encoding/json HTML-escapes <, > and & in the result unless the
// encoder has SetEscapeHTML(false).
func (c Content) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// UnmarshalJSON implements json.Unmarshaler; see DecodeContent.
func (c *Content) UnmarshalJSON(b []byte) error {
	v, err := DecodeContent(b)
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// DecodeContent decodes the wire form of content: a string is one text
// part, an array is a list of part objects; images are validated
// (DecodeImage). Error texts follow the reference: "expected content string
// or array", "expected content part object", "unknown content part type",
// "invalid image: <image error>".
func DecodeContent(b []byte) (Content, error) {
	switch firstByte(b) {
	case '"':
		s, ok := rawString(b)
		if !ok {
			return nil, errors.New("expected content string or array")
		}
		return Text(s), nil
	case '[':
		var raws []json.RawMessage
		if err := json.Unmarshal(b, &raws); err != nil {
			return nil, errors.New("expected content string or array")
		}
		c := make(Content, 0, len(raws))
		for _, raw := range raws {
			p, err := decodePart(raw)
			if err != nil {
				return nil, err
			}
			c = append(c, p)
		}
		return c, nil
	}
	return nil, errors.New("expected content string or array")
}

func decodePart(raw json.RawMessage) (Part, error) {
	o, ok := decodeObject(raw)
	if !ok {
		return Part{}, errors.New("expected content part object")
	}
	typ, _ := o.str("type")
	switch typ {
	case "text":
		s, ok := o.str("text")
		if !ok {
			return Part{}, errors.New(`expected a string "text" field in text part`)
		}
		return Part{Type: "text", Text: s}, nil
	case "image":
		mediaType, ok1 := o.str("media_type")
		data, ok2 := o.str("data")
		if !ok1 || !ok2 {
			return Part{}, errors.New(`expected string "media_type" and "data" fields in image part`)
		}
		p, err := DecodeImage(mediaType, data)
		if err != nil {
			return Part{}, errors.New("invalid image: " + err.Error())
		}
		return p, nil
	}
	return Part{}, errors.New("unknown content part type")
}
