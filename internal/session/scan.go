package session

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a strict, allocation-light JSON reader for event lines.
//
// encoding/json spends most of a long session's load time in reflection
// and a separate validation pass (about 10x slower than this on a
// 100,000-event file), and the faster drop-in decoders accept invalid
// JSON. This reader implements RFC 8259 for the handful of shapes a log
// line has: it rejects everything encoding/json's validator rejects, and
// decodes strings the way encoding/json does (invalid UTF-8 and lone
// surrogates become U+FFFD). Keys match exactly; unknown keys are skipped
// (their values still validated); duplicate keys: the last wins.
type scanner struct {
	b []byte
	i int
}

// maxDepth bounds nesting in skipped values, as encoding/json does.
const maxDepth = 10000

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", s.i, fmt.Sprintf(format, args...))
}

func (s *scanner) unexpected(want string) error {
	if s.i >= len(s.b) {
		return s.errorf("unexpected end of input, want %s", want)
	}
	return s.errorf("unexpected %q, want %s", s.b[s.i], want)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte (0 at the end).
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// end checks nothing but whitespace remains.
func (s *scanner) end() error {
	if s.peek() != 0 || s.i < len(s.b) {
		return s.unexpected("end of input")
	}
	return nil
}

// null consumes a null literal if one is next.
func (s *scanner) null() (bool, error) {
	if s.peek() != 'n' {
		return false, nil
	}
	return true, s.literal("null")
}

func (s *scanner) literal(lit string) error {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return s.unexpected(lit)
	}
	s.i += len(lit)
	return nil
}

// object reads an object, calling field for each key with the scanner
// positioned at the value, which field must consume. The key aliases the
// input (or a scratch copy when escaped); compare it, do not keep it.
func (s *scanner) object(field func(key []byte) error) error {
	if s.peek() != '{' {
		return s.unexpected("an object")
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		if s.peek() != '"' {
			return s.unexpected("an object key")
		}
		key, err := s.key()
		if err != nil {
			return err
		}
		if s.peek() != ':' {
			return s.unexpected("':'")
		}
		s.i++
		s.ws()
		if err := field(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.unexpected("',' or '}'")
		}
	}
}

// array reads an array, calling elem with the scanner at each element.
func (s *scanner) array(elem func() error) error {
	if s.peek() != '[' {
		return s.unexpected("an array")
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		s.ws()
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.unexpected("',' or ']'")
		}
	}
}

// key reads an object key without allocating when it has no escapes.
func (s *scanner) key() ([]byte, error) {
	s.i++ // the opening quote, checked by the caller
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			s.i++
			return s.b[start : s.i-1], nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			v, err := s.slowStr(start)
			return []byte(v), err
		}
		s.i++
	}
	return nil, s.unexpected("'\"'")
}

// str reads a string value.
func (s *scanner) str() (string, error) {
	if s.peek() != '"' {
		return "", s.unexpected("a string")
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			v := string(s.b[start:s.i])
			s.i++
			return v, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return s.slowStr(start)
		}
		s.i++
	}
	return "", s.unexpected("'\"'")
}

// slowStr finishes a string that has escapes, control bytes or non-ASCII.
func (s *scanner) slowStr(start int) (string, error) {
	out := make([]byte, 0, s.i-start+16)
	out = append(out, s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return string(out), nil
		case c < 0x20:
			return "", s.errorf("control character %q in string", c)
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return "", s.unexpected("an escape")
			}
			e := s.b[s.i+1]
			s.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, err := s.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
						save := s.i
						s.i += 2
						if r2, err = s.hex4(); err != nil {
							return "", err
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							r = dec
						} else {
							s.i, r = save, utf8.RuneError
						}
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", s.errorf("invalid escape '\\%c'", e)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			s.i++
		default:
			r, size := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s.b[s.i:s.i+size]...)
			}
			s.i += size
		}
	}
	return "", s.unexpected("'\"'")
}

func (s *scanner) hex4() (rune, error) {
	if len(s.b)-s.i < 4 {
		return 0, s.unexpected("four hex digits")
	}
	var r rune
	for _, c := range s.b[s.i : s.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, s.errorf("invalid hex digit %q in \\u escape", c)
		}
	}
	s.i += 4
	return r, nil
}

// number reads a number token and reports whether it is an integer (no
// fraction or exponent).
func (s *scanner) number() (tok []byte, integer bool, err error) {
	s.ws()
	start := s.i
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case digits() == 0:
		return nil, false, s.unexpected("a number")
	}
	integer = true
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		integer = false
		if digits() == 0 {
			return nil, false, s.unexpected("a digit")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		integer = false
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return nil, false, s.unexpected("a digit")
		}
	}
	return s.b[start:s.i], integer, nil
}

// integer reads a number that must be an integer fitting in int.
func (s *scanner) integer(field string) (int, error) {
	tok, integer, err := s.number()
	if err != nil {
		return 0, err
	}
	if !integer {
		return 0, fmt.Errorf("%s: want an integer, got %s", field, tok)
	}
	v, err := strconv.ParseInt(string(tok), 10, strconv.IntSize)
	if err != nil {
		return 0, fmt.Errorf("%s: %s out of range", field, tok)
	}
	return int(v), nil
}

func (s *scanner) boolean() (bool, error) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, s.unexpected("true or false")
}

// skip validates and skips one value, returning its bytes.
func (s *scanner) skip() ([]byte, error) {
	s.ws()
	start := s.i
	err := s.skipValue(0)
	return s.b[start:s.i], err
}

func (s *scanner) skipValue(depth int) error {
	if depth > maxDepth {
		return s.errorf("nesting exceeds %d levels", maxDepth)
	}
	switch s.peek() {
	case '{':
		return s.object(func([]byte) error { return s.skipValue(depth + 1) })
	case '[':
		return s.array(func() error { return s.skipValue(depth + 1) })
	case '"':
		return s.skipString()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, _, err := s.number()
	return err
}

// skipString validates a string without building it.
func (s *scanner) skipString() error {
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c < 0x20:
			return s.errorf("control character %q in string", c)
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return s.unexpected("an escape")
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				s.i += 2
				if _, err := s.hex4(); err != nil {
					return err
				}
			default:
				return s.errorf("invalid escape '\\%c'", s.b[s.i+1])
			}
		default:
			s.i++
		}
	}
	return s.unexpected("'\"'")
}

// optString reads a string, or null (ok false).
func (s *scanner) optString() (v string, ok bool, err error) {
	if isNull, err := s.null(); isNull || err != nil {
		return "", false, err
	}
	v, err = s.str()
	return v, err == nil, err
}

// optStr reads a string or null (nil).
func (s *scanner) optStr() (*string, error) {
	v, ok, err := s.optString()
	if !ok {
		return nil, err
	}
	return &v, nil
}
