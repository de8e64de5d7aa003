package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Event lines are read token by token with jsontext (the encoding/json/v2
// text layer), which checks RFC 8259 syntax strictly. Two options keep the
// log's long-standing reading rules: invalid UTF-8 and lone surrogate
// escapes decode to U+FFFD (as encoding/json does), and a duplicated key
// is allowed, the last occurrence winning. The helpers below turn tokens
// into typed fields; errors name the field or the JSON kind expected.

// lineReader reads one JSON text at a time; reuse it across lines to keep
// the decoder's state allocation off the per-line path.
type lineReader struct {
	in  bytes.Buffer
	dec jsontext.Decoder
}

// start points the decoder at b, which it reads in place (no copy).
func (r *lineReader) start(b []byte) *jsontext.Decoder {
	r.in = *bytes.NewBuffer(b)
	r.dec.Reset(&r.in, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	return &r.dec
}

// atEnd checks nothing but whitespace follows the value just read.
func atEnd(d *jsontext.Decoder) error {
	switch _, err := d.ReadToken(); {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("unexpected data after the JSON value at offset %d", d.InputOffset())
}

// want reports a value of the wrong JSON kind.
func want(what string, got jsontext.Kind) error {
	return fmt.Errorf("unexpected %s, want %s", got, what)
}

// readObject reads an object, calling field for each name with the decoder
// positioned at the value, which field must consume. The name aliases the
// decoder's input (or a scratch copy when escaped): compare it, do not keep
// it.
func readObject(d *jsontext.Decoder, field func(name []byte) error) error {
	tok, err := d.ReadToken()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if tok.Kind() != '{' {
		return want("an object", tok.Kind())
	}
	for d.PeekKind() != '}' {
		raw, err := d.ReadValue() // the name; the decoder checked it is a string
		if err != nil {
			return err
		}
		name := raw[1 : len(raw)-1]
		if bytes.IndexByte(name, '\\') >= 0 || !isASCII(name) {
			// Already validated: the only errors left report the U+FFFD
			// substitutions the options allow.
			name, _ = jsontext.AppendUnquote(nil, raw)
		}
		if err := field(name); err != nil {
			return err
		}
	}
	_, err = d.ReadToken() // '}', or the syntax error PeekKind deferred
	return err
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// readArray reads an array, calling elem with the decoder at each element.
func readArray(d *jsontext.Decoder, elem func() error) error {
	tok, err := d.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '[' {
		return want("an array", tok.Kind())
	}
	for d.PeekKind() != ']' {
		if err := elem(); err != nil {
			return err
		}
	}
	_, err = d.ReadToken()
	return err
}

// readNull consumes a null if one is next.
func readNull(d *jsontext.Decoder) (bool, error) {
	if d.PeekKind() != 'n' {
		return false, nil
	}
	_, err := d.ReadToken()
	return true, err
}

// readStr reads a string value.
func readStr(d *jsontext.Decoder) (string, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return "", err
	}
	if tok.Kind() != '"' {
		return "", want("a string", tok.Kind())
	}
	return tok.String(), nil
}

// readOptStr reads a string, or null (nil).
func readOptStr(d *jsontext.Decoder) (*string, error) {
	tok, err := d.ReadToken()
	switch {
	case err != nil:
		return nil, err
	case tok.Kind() == 'n':
		return nil, nil
	case tok.Kind() != '"':
		return nil, want("a string", tok.Kind())
	}
	v := tok.String()
	return &v, nil
}

// readStrOrNull reads a string; null reads as "".
func readStrOrNull(d *jsontext.Decoder) (string, error) {
	v, err := readOptStr(d)
	if v == nil {
		return "", err
	}
	return *v, err
}

// readBool reads true or false.
func readBool(d *jsontext.Decoder) (bool, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return false, err
	}
	if k := tok.Kind(); k != 't' && k != 'f' {
		return false, want("true or false", k)
	}
	return tok.Bool(), nil
}

// readNumber reads a number and returns its JSON text, which aliases the
// decoder's buffer: use it before the next read.
func readNumber(d *jsontext.Decoder) ([]byte, error) {
	v, err := d.ReadValue()
	if err != nil {
		return nil, err
	}
	if v.Kind() != '0' {
		return nil, want("a number", v.Kind())
	}
	return v, nil
}

// readInt reads a number that must be an integer fitting in int.
func readInt(d *jsontext.Decoder, field string) (int, error) {
	num, err := readNumber(d)
	if err != nil {
		return 0, err
	}
	if bytes.ContainsAny(num, ".eE") {
		return 0, fmt.Errorf("%s: want an integer, got %s", field, num)
	}
	v, err := strconv.ParseInt(string(num), 10, strconv.IntSize)
	if err != nil {
		return 0, fmt.Errorf("%s: %s out of range", field, num)
	}
	return int(v), nil
}

// readOptFloat reads a finite number, or null (nil).
func readOptFloat(d *jsontext.Decoder, field string) (*float64, error) {
	if isNull, err := readNull(d); isNull || err != nil {
		return nil, err
	}
	num, err := readNumber(d)
	if err != nil {
		return nil, err
	}
	v, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return nil, fmt.Errorf("%s: %s out of range", field, num)
	}
	return &v, nil
}

// readOptInt reads an integer, or null (nil).
func readOptInt(d *jsontext.Decoder, field string) (*int, error) {
	if isNull, err := readNull(d); isNull || err != nil {
		return nil, err
	}
	v, err := readInt(d, field)
	return &v, err
}

// skipValue validates and skips one value.
func skipValue(d *jsontext.Decoder) error { return d.SkipValue() }

// readRaw reads one value and returns a copy of its JSON text.
func readRaw(d *jsontext.Decoder) ([]byte, error) {
	v, err := d.ReadValue()
	return bytes.Clone(v), err
}
