package protocol

// Part is one piece of message content: text or an image.
// Image parts hold the raw (decoded) bytes; JSON carries them as padded base64.
type Part struct {
	Type      string // "text" or "image"
	Text      string // Type == "text"
	MediaType string // Type == "image": image/png, image/jpeg, image/gif, image/webp
	Data      []byte // Type == "image": raw image bytes
}

// Content is message content: an ordered list of parts. On the wire a
// single text part is a bare JSON string and anything else an array.
type Content []Part

// Text returns content made of one text part.
func Text(s string) Content { return Content{{Type: "text", Text: s}} }

// Text concatenates the text parts in order; images contribute nothing.
func (c Content) Text() string {
	if len(c) == 1 && c[0].Type == "text" {
		return c[0].Text
	}
	n := 0
	for _, p := range c {
		n += len(p.Text)
	}
	b := make([]byte, 0, n)
	for _, p := range c {
		if p.Type == "text" {
			b = append(b, p.Text...)
		}
	}
	return string(b)
}

// IsTextOnly reports whether every part is text (empty content counts).
func (c Content) IsTextOnly() bool {
	for _, p := range c {
		if p.Type != "text" {
			return false
		}
	}
	return true
}
