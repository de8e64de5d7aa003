package llm

import (
	"bytes"
	"encoding/json"
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

// WriteObject writes {"key":value,…} in one allocation of the right size.
func WriteObject(members []Member) ([]byte, error) {
	keys := make([][]byte, len(members))
	n := 2
	for i, m := range members {
		key, err := Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		keys[i] = key
		n += len(key) + len(m.Value) + 2
		if m.Array != nil {
			n += m.Array.Size()
		}
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, keys[i]...)
		b = append(b, ':')
		if m.Array != nil {
			b = m.Array.AppendTo(b)
		} else {
			b = append(b, m.Value...)
		}
	}
	return append(b, '}'), nil
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

// Splice writes before, the array, then after, in one allocation.
func Splice(before []byte, a *Array, after []byte) []byte {
	b := make([]byte, 0, len(before)+a.Size()+len(after))
	b = append(b, before...)
	b = a.AppendTo(b)
	return append(b, after...)
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
