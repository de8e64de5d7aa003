package protocol

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

func appendString(b []byte, s string) []byte { return AppendJSONString(b, s) }

// AppendJSONString appends s as a JSON string exactly as encoding/json does
// with SetEscapeHTML(false): raw UTF-8, invalid bytes as \ufffd, and
// U+2028/U+2029 escaped so the output is also valid JavaScript.
func AppendJSONString(b []byte, s string) []byte { return appendJSONString(b, s, true) }

// AppendMinimalJSONString appends s as a JSON string escaping only what
// JSON requires: quotes, backslashes and control characters; invalid UTF-8
// becomes \ufffd. Unlike AppendJSONString, U+2028 and U+2029 stay raw.
func AppendMinimalJSONString(b []byte, s string) []byte { return appendJSONString(b, s, false) }

// appendJSONString is both: lineSeps escapes U+2028 and U+2029.
func appendJSONString(b []byte, s string, lineSeps bool) []byte {
	// One growth (with room for some escapes) instead of a doubling chain.
	b = slices.Grow(b, len(s)+len(s)/8+8)
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if lineSeps && (r == '\u2028' || r == '\u2029') {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendKey appends `,"key":` (or `"key":` right after an opening brace).
func appendKey(b []byte, key string) []byte {
	if len(b) > 0 && b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendStrField(b []byte, key, v string) []byte {
	return appendString(appendKey(b, key), v)
}

func appendIntField(b []byte, key string, v int) []byte {
	return strconv.AppendInt(appendKey(b, key), int64(v), 10)
}

func appendBoolField(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(appendKey(b, key), v)
}

// appendStrings writes an array of strings.
func appendStrings(b []byte, key string, vs []string) []byte {
	b = append(appendKey(b, key), '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

// appendOptStrField writes the value or null; the key is always present.
func appendOptStrField(b []byte, key string, v *string) []byte {
	b = appendKey(b, key)
	if v == nil {
		return append(b, "null"...)
	}
	return appendString(b, *v)
}

// appendOmitStrField writes the key only when v is present.
func appendOmitStrField(b []byte, key string, v *string) []byte {
	if v == nil {
		return b
	}
	return appendString(appendKey(b, key), *v)
}
