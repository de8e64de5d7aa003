package export

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/sandbox"
)

func TestRedact(t *testing.T) {
	known := sandbox.NewSecrets(nil, []string{"my-own-provider-key-123"})
	r := NewRedactor(known)
	const R = sandbox.Redacted
	for _, tc := range []struct{ in, want string }{
		{"key sk-abcdefghijklmnop0123 end", "key " + R + " end"},
		{"sk-ant-api03-abcdefghijklmnopqrstuv", R},
		{`"OPENAI_API_KEY=sk-proj-ABCDEFGHIJKLMNOPQRST"`, `"OPENAI_API_KEY=` + R + `"`},
		{"token ghp_0123456789abcdefghijklmnopqrstuvwxyz", "token " + R},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnop", R},
		{"aws AKIAIOSFODNN7EXAMPLE here", "aws " + R + " here"},
		{"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "Authorization: Bearer " + R},
		{"xoxb-1234567890-abcdefghij", R},
		{"the configured my-own-provider-key-123 leaks", "the configured " + R + " leaks"},
		// Inside a JSON string, after an escape, the token is still found.
		{`"line\nsk-abcdefghijklmnop0123"`, `"line\n` + R + `"`},
		// Words that merely contain the shapes are left alone.
		{"task-abcdefghijklmnopqrstu and mask-0123456789abcdefghij", "task-abcdefghijklmnopqrstu and mask-0123456789abcdefghij"},
		{"sk-short", "sk-short"},
		{"Bearer short", "Bearer short"},
	} {
		if got := string(r.Redact([]byte(tc.in))); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzRedact: a redacted JSON line stays JSON, and holds no token shape.
func FuzzRedact(f *testing.F) {
	f.Add("sk-abcdefghijklmnop0123")
	f.Add("x\nBearer abcdefghijklmnopqrstuvwxyz==\"")
	f.Add("-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----")
	r := NewRedactor(nil)
	f.Fuzz(func(t *testing.T, s string) {
		line, err := json.Marshal(map[string]string{"content": s})
		if err != nil {
			return
		}
		out := r.Redact(line)
		if !json.Valid(out) {
			t.Fatalf("Redact(%s) = %s: not JSON", line, out)
		}
		var back map[string]string
		json.Unmarshal(out, &back)
		if again := string(r.Redact([]byte(back["content"]))); again != back["content"] && !strings.Contains(again, sandbox.Redacted) {
			t.Fatalf("a token survived: %q", back["content"])
		}
	})
}
