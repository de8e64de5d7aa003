package protocol

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// object is a decoded JSON object whose values are still raw. Lookups check
// the JSON type by the value's first byte, because encoding/json happily
// decodes null into a string and would hide a missing field.
type object map[string]json.RawMessage

// decodeObject reports false unless b is exactly one JSON object.
func decodeObject(b []byte) (object, bool) {
	if firstByte(b) != '{' {
		return nil, false
	}
	var o object
	if err := json.Unmarshal(b, &o); err != nil || o == nil {
		return nil, false
	}
	return o, true
}

// firstByte is the first non-whitespace byte of b, or 0.
func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

func isNull(raw json.RawMessage) bool { return firstByte(raw) == 'n' }

// str returns the string at key, false if absent or not a string.
func (o object) str(key string) (string, bool) {
	raw, ok := o[key]
	if !ok {
		return "", false
	}
	return rawString(raw)
}

func rawString(raw json.RawMessage) (string, bool) {
	if firstByte(raw) != '"' {
		return "", false
	}
	// Fast path: values that need no unescaping (the common case, and all
	// base64 image data) are copied without a second scan by encoding/json.
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && plainJSONString(raw[1:n-1]) {
		return string(raw[1 : n-1]), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// plainJSONString reports whether b, the inside of a JSON string literal,
// contains no escapes, quotes or control bytes and is valid UTF-8, so that
// it decodes to itself.
func plainJSONString(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(b)
}

// number returns the JSON number at raw as a float64, the value model of
// the upstream decoder (and of JSON itself).
func rawNumber(raw json.RawMessage) (float64, bool) {
	c := firstByte(raw)
	if c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// int32At returns the integral, int32-ranged number at key.
func (o object) int32At(key string) (int, bool) {
	raw, ok := o[key]
	if !ok {
		return 0, false
	}
	return rawInt32(raw)
}

func rawInt32(raw json.RawMessage) (int, bool) {
	f, ok := rawNumber(raw)
	if !ok || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// maxSafeInt is 2^53-1, the largest integer a JSON double holds exactly.
const maxSafeInt = 1<<53 - 1

func rawSafeUint(raw json.RawMessage) (int64, bool) {
	f, ok := rawNumber(raw)
	if !ok || f != math.Trunc(f) || f < 0 || f > maxSafeInt {
		return 0, false
	}
	return int64(f), true
}

func (o object) boolAt(key string) (bool, bool) {
	switch string(o[key]) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// fields reads required fields one after another and remembers whether all
// of them were present and well typed, so a parser reads like the table in
// the reference.
type fields struct {
	o  object
	ok bool
}

func (f *fields) str(key string) string {
	s, ok := f.o.str(key)
	f.ok = f.ok && ok
	return s
}

func (f *fields) int(key string) int {
	n, ok := f.o.int32At(key)
	f.ok = f.ok && ok
	return n
}

func (f *fields) bool(key string) bool {
	v, ok := f.o.boolAt(key)
	f.ok = f.ok && ok
	return v
}

// optStr is a defaulted string: absent, null or not a string all mean none.
func (f *fields) optStr(key string) *string {
	s, ok := f.o.str(key)
	if !ok {
		return nil
	}
	return &s
}

// strOr is a defaulted string: absent or not a string mean def.
func (f *fields) strOr(key, def string) string {
	if s, ok := f.o.str(key); ok {
		return s
	}
	return def
}

// optStrings is an array of strings that may be absent (nil).
func (f *fields) optStrings(key string) []string {
	if _, ok := f.o[key]; !ok {
		return nil
	}
	return f.strings(key)
}

// usage decodes a required usage object.
func (f *fields) usage(key string) Usage {
	var u Usage
	f.ok = f.ok && u.UnmarshalJSON(f.o[key]) == nil
	return u
}
