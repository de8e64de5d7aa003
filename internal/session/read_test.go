package session

import (
	"reflect"
	"strings"
	"testing"

	"github.com/openseek/openseek/protocol"
)

// TestParseEventReadingRules pins the JSON reading rules of event lines:
// strict RFC 8259 syntax, with invalid UTF-8 and lone surrogates decoded to
// U+FFFD and duplicate keys resolved last-wins, as encoding/json does.
func TestParseEventReadingRules(t *testing.T) {
	const pre = `{"sequence":1,"ts":0,"item":{"kind":"runtime_notice","payload":`
	notice := func(s string) Item { return &Notice{Content: s} }
	tests := []struct {
		name, line string
		want       Item   // when accepted
		err        string // when rejected
	}{
		{"invalid UTF-8 becomes U+FFFD", pre + "{\"content\":\"a\xffb\"}}}", notice("a\uFFFDb"), ""},
		{"lone surrogate becomes U+FFFD", pre + `{"content":"\ud800\u0041"}}}`, notice("\uFFFDA"), ""},
		{"surrogate pair decodes", pre + `{"content":"\ud83d\ude00 \u00e9"}}}`, notice("\U0001F600 é"), ""},
		{"escaped key matches", pre + `{"con\u0074ent":"x"}}}`, notice("x"), ""},
		{"duplicate key last wins", pre + `{"content":"a","content":"b"}}}`, notice("b"), ""},
		{"duplicate kind last wins", `{"sequence":1,"ts":0,"item":{"kind":"bogus","payload":{"content":"x"},"kind":"runtime_notice"}}`, notice("x"), ""},
		{"whitespace everywhere", " {\t\"sequence\" : 1 ,\"ts\":0,\r\n\"item\":{\"kind\":\"user\",\"payload\":{\"content\":[ ]}} } ", &User{Content: protocol.Content{}}, ""},
		{"control character in string", pre + "{\"content\":\"a\x01\"}}}", nil, "in string"},
		{"trailing comma in object", pre + `{"content":"x",}}}`, nil, "invalid character"},
		{"trailing comma in array", `{"sequence":1,"ts":0,"item":{"kind":"user","payload":{"content":[{"type":"text","text":"a"},]}}}`, nil, "invalid character"},
		{"trailing data", pre + `{"content":"x"}}} {}`, nil, "after the JSON value"},
		{"trailing garbage", pre + `{"content":"x"}}}x`, nil, "invalid character"},
		{"bad escape", pre + `{"content":"\q"}}}`, nil, "invalid escape"},
		{"leading zero", `{"sequence":01,"ts":0,"item":{}}`, nil, "invalid character"},
		{"fractional sequence", `{"sequence":1.5,"ts":0,"item":{"kind":"user","payload":{"content":"x"}}}`, nil, "sequence: want an integer, got 1.5"},
		{"sequence out of range", `{"sequence":1e99999,"ts":0,"item":{"kind":"user","payload":{"content":"x"}}}`, nil, "want an integer"},
		{"huge sequence", `{"sequence":99999999999999999999,"ts":0,"item":{"kind":"user","payload":{"content":"x"}}}`, nil, "sequence: 99999999999999999999 out of range"},
		{"string sequence", `{"sequence":"1","ts":0,"item":{"kind":"user","payload":{"content":"x"}}}`, nil, "want a number"},
		{"payload not an object", `{"sequence":1,"ts":0,"item":{"kind":"user","payload":[]}}`, nil, "user payload must be an object"},
		{"empty line", ``, nil, "unexpected EOF"},
		{"not an object", `[1]`, nil, "want an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := ParseEvent([]byte(tt.line))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(e.Item, tt.want) {
				t.Fatalf("got %#v, want %#v", e.Item, tt.want)
			}
		})
	}
}
