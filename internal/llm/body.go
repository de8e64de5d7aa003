package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"slices"
)

// Helpers for adapters that write a request body piece by piece, so that
// the encoding of a conversation's stable messages (kept in a Run between
// requests) is copied into each body once instead of being encoded again.
// They write what encoding/json writes without HTML escaping: a body
// assembled from them is byte for byte the whole-struct encoding.

// Member is one member of a JSON object: its key and its encoded value,
// or an Array.
type Member struct {
	Key   string
	Value []byte
	Array *Array // the value when set
}

// Body is a request body in pieces. The runs of a conversation's kept
// encoding (Run.Slice) are referenced, not copied: a request costs what
// its new messages add, not the whole conversation again. Kept bytes are
// never modified, so a Body stays valid for a retry.
type Body struct {
	parts [][]byte
	n     int
	small []byte // short pieces gathered into one part
}

// BodyOf is a Body of one piece.
func BodyOf(b []byte) Body {
	var body Body
	body.add(b)
	return body.done()
}

// add appends p: a short piece is gathered with its neighbours, a long
// one referenced as it is.
func (b *Body) add(p []byte) {
	if len(p) == 0 {
		return
	}
	b.n += len(p)
	if len(p) < 512 {
		b.small = append(b.small, p...)
		return
	}
	b.flush()
	b.parts = append(b.parts, p)
}

func (b *Body) addByte(c byte) {
	b.n++
	b.small = append(b.small, c)
}

// flush closes the gathered short pieces into a part; the next ones go
// to a fresh buffer, so the part is never written again.
func (b *Body) flush() {
	if len(b.small) > 0 {
		b.parts = append(b.parts, b.small)
		b.small = nil
	}
}

func (b Body) done() Body {
	b.flush()
	return b
}

// Len is the body's size in bytes.
func (b Body) Len() int { return b.n }

// Bytes is the body in one piece (a copy).
func (b Body) Bytes() []byte {
	out := make([]byte, 0, b.n)
	for _, p := range b.parts {
		out = append(out, p...)
	}
	return out
}

// Reader reads the body from the start; each call gets its own.
func (b Body) Reader() io.Reader {
	bufs := net.Buffers(slices.Clone(b.parts))
	return &bufs
}

// WriteObject writes {"key":value,…}.
func WriteObject(members []Member) (Body, error) {
	var b Body
	b.addByte('{')
	for i, m := range members {
		key, err := Marshal(m.Key)
		if err != nil {
			return Body{}, err
		}
		if i > 0 {
			b.addByte(',')
		}
		b.add(key)
		b.addByte(':')
		if m.Array != nil {
			m.Array.addTo(&b)
		} else {
			b.add(m.Value)
		}
	}
	b.addByte('}')
	return b.done(), nil
}

// Array is a JSON array assembled from encoded elements: runs of kept
// elements (Run.Slice) and single fresh ones.
type Array struct {
	parts [][]byte
	comma []bool // parts[i] is one element that needs its comma
	size  int
}

// AddRun appends elements that are each already followed by a comma.
func (a *Array) AddRun(run []byte) {
	if len(run) == 0 {
		return
	}
	a.parts = append(a.parts, run)
	a.comma = append(a.comma, false)
	a.size += len(run)
}

// Add appends one encoded element.
func (a *Array) Add(elem []byte) {
	a.parts = append(a.parts, elem)
	a.comma = append(a.comma, true)
	a.size += len(elem) + 1
}

// Size is the encoded size of the array (an upper bound by one byte).
func (a *Array) Size() int { return a.size + 2 }

// AppendTo appends the array to b.
func (a *Array) AppendTo(b []byte) []byte {
	b = append(b, '[')
	for i, p := range a.parts {
		b = append(b, p...)
		if a.comma[i] {
			b = append(b, ',')
		}
	}
	if len(a.parts) > 0 {
		b = b[:len(b)-1] // the last element's comma
	}
	return append(b, ']')
}

// addTo appends the array to b, referencing its runs.
func (a *Array) addTo(b *Body) {
	b.addByte('[')
	last := len(a.parts) - 1
	for i, p := range a.parts {
		switch {
		case a.comma[i]:
			b.add(p)
			if i < last {
				b.addByte(',')
			}
		case i == last:
			b.add(p[:len(p)-1]) // the run's last comma
		default:
			b.add(p)
		}
	}
	b.addByte(']')
}

// Splice writes before, the array, then after.
func Splice(before []byte, a *Array, after []byte) Body {
	var b Body
	b.add(before)
	a.addTo(&b)
	b.add(after)
	return b.done()
}

// Run keeps encoded array elements between requests in one buffer, each
// followed by a comma, so that any run of them is one slice to copy.
type Run struct {
	buf  []byte
	ends []int // ends[i] is where element i and its comma end in buf
}

// Len is the number of elements kept.
func (r *Run) Len() int { return len(r.ends) }

// Push keeps one more element.
func (r *Run) Push(elem []byte) {
	r.buf = append(append(r.buf, elem...), ',')
	r.ends = append(r.ends, len(r.buf))
}

// Slice is elements i..j-1, each followed by a comma. Kept bytes are
// never modified, so the slice stays valid.
func (r *Run) Slice(i, j int) []byte {
	if i >= j {
		return nil
	}
	start := 0
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.buf[start:r.ends[j-1]]
}

// Marshal is json.Marshal without HTML escaping (prompts are full of <
// and &) and without the encoder's trailing newline: how the adapters
// encode every part of a body.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
