package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzFilter: any input line is either passed to the SDK as a JSON object
// naming a method or answering an id, or answered with exactly one
// JSON-RPC error line; nothing panics.
func FuzzFilter(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`not json`, `[1]`, `{"id":2}`, `{"method":7}`, `{}`, `null`, `"x"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.ReplaceAll(line, "\n", " ")
		pr, pw := io.Pipe()
		var out bytes.Buffer
		passed := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(pr); passed <- b }()
		if err := filter(strings.NewReader(line+"\n"), pw, &out); err != nil {
			t.Fatal(err)
		}
		through := <-passed
		switch {
		case len(bytes.TrimSpace([]byte(line))) == 0:
			if len(through) != 0 || out.Len() != 0 {
				t.Errorf("a blank line produced %q / %q", through, out.String())
			}
		case out.Len() > 0:
			if len(through) != 0 {
				t.Errorf("%q was both passed and rejected", line)
			}
			var resp struct {
				JSONRPC string
				ID      json.RawMessage
				Error   struct{ Code int }
			}
			if json.Unmarshal(out.Bytes(), &resp) != nil || resp.JSONRPC != "2.0" || resp.Error.Code == 0 || strings.Count(out.String(), "\n") != 1 {
				t.Errorf("%q answered with %q", line, out.String())
			}
		default:
			var m map[string]json.RawMessage
			if json.Unmarshal(through, &m) != nil || (m["method"] == nil && m["id"] == nil) {
				t.Errorf("%q passed as %q", line, through)
			}
		}
	})
}
