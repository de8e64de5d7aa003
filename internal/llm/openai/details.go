package openai

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// OpenRouter's reasoning_details: the structured form of the reasoning it
// streams beside delta.reasoning. Items are {"type":"reasoning.text",
// "text","signature","format","index"}, {"type":"reasoning.summary",
// "summary",…} or {"type":"reasoning.encrypted","data",…}. A stream splits
// one item over many chunks (text a few words at a time, the Anthropic
// signature in a chunk of its own); sent back whole on the assistant
// message, they let the model keep its reasoning across tool calls.

// detailPrefix starts the type of every OpenRouter reasoning item; items of
// other providers (the Responses API's "reasoning") never match it.
const detailPrefix = "reasoning."

// appendedFields are the string fields a stream delivers in fragments;
// every other field is kept as it arrives, a later non-null value winning.
var appendedFields = [...]string{"text", "summary"}

// detail is one reasoning item being assembled.
type detail struct {
	typ      string
	key      string // index on the wire, else the position in its chunk
	fields   map[string]json.RawMessage
	appended map[string]*strings.Builder
}

// details assembles reasoning_details fragments into items, in the order
// the items first appeared.
type details struct {
	items []*detail
}

// add merges the fragments of one delta. A fragment joins the item of the
// same type and index (its position in the array when it has no index);
// malformed fragments are ignored.
func (d *details) add(frags []json.RawMessage) {
	for pos, raw := range frags {
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil || fields == nil {
			continue
		}
		var typ string
		if json.Unmarshal(fields["type"], &typ) != nil || !strings.HasPrefix(typ, detailPrefix) {
			continue
		}
		key := string(bytes.TrimSpace(fields["index"]))
		if key == "" || key == "null" {
			key = "#" + strconv.Itoa(pos)
		}
		it := d.find(typ, key)
		for name, v := range fields {
			if isNull(v) {
				continue
			}
			if appendedField(name) {
				var s string
				if json.Unmarshal(v, &s) == nil {
					it.appended[name].WriteString(s)
					continue
				}
			}
			it.fields[name] = v
		}
	}
}

func (d *details) find(typ, key string) *detail {
	for _, it := range d.items {
		if it.typ == typ && it.key == key {
			return it
		}
	}
	it := &detail{typ: typ, key: key, fields: map[string]json.RawMessage{}, appended: map[string]*strings.Builder{}}
	for _, name := range appendedFields {
		it.appended[name] = &strings.Builder{}
	}
	d.items = append(d.items, it)
	return it
}

// raw is the assembled items as a JSON array with each object's keys in
// sorted order, or nil when the stream carried none.
func (d *details) raw() json.RawMessage {
	if len(d.items) == 0 {
		return nil
	}
	out := make([]map[string]json.RawMessage, 0, len(d.items))
	for _, it := range d.items {
		m := make(map[string]json.RawMessage, len(it.fields)+1)
		for k, v := range it.fields {
			m[k] = v
		}
		for _, name := range appendedFields {
			if b := it.appended[name]; b.Len() > 0 {
				m[name], _ = marshal(b.String())
			}
		}
		out = append(out, m)
	}
	b, err := marshal(out)
	if err != nil {
		return nil
	}
	return b
}

func appendedField(name string) bool {
	for _, f := range appendedFields {
		if f == name {
			return true
		}
	}
	return false
}

func isNull(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || string(v) == "null"
}

// echoDetails is items to send back as reasoning_details, or nil when they
// are not a non-empty JSON array of OpenRouter reasoning objects (another
// provider's items, say, which OpenRouter would refuse).
func echoDetails(items json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(items)) == 0 {
		return nil
	}
	var objs []map[string]json.RawMessage
	if json.Unmarshal(items, &objs) != nil || len(objs) == 0 {
		return nil
	}
	for _, o := range objs {
		var typ string
		if o == nil || json.Unmarshal(o["type"], &typ) != nil || !strings.HasPrefix(typ, detailPrefix) {
			return nil
		}
	}
	return items
}
