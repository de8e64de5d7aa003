package protocol

import (
	"bytes"
	"encoding/json"
	"testing"
)

// stdString is encoding/json's encoding of s with HTML escaping off, the
// reference appendString must match.
func stdString(t testing.TB, s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", `"quoted" \back\slash`, "<html> & 'x'", "\x00\x01\x1f\x7f",
		"\b\f\n\r\t", "é 世界 😀", "\u2028\u2029", "bad \xff utf8 \xc3", "\xed\xa0\x80",
		"mixed\x00\u2028\xfe<tail>",
	} {
		if got, want := string(appendString(nil, s)), stdString(t, s); got != want {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\u2028", "\xff", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendString(nil, s)), stdString(t, s); got != want {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}
