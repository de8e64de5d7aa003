// Package export turns a recorded session into something to share: a
// readable Markdown transcript (Markdown), and redaction of the keys and
// secrets a session log may hold (Redactor), applied to the log's bytes
// before any format is made from them, so that every format — Markdown,
// the viewer's HTML page, the raw log — is redacted the same way.
package export

import (
	"regexp"
	"strings"
	"sync"

	"github.com/openseek/openseek/internal/sandbox"
)

// tokenShapes are the shapes of credentials issued by well-known services,
// recognised whether or not this machine knows the key. Each pattern's
// first group is what precedes the token (kept): the start, a character
// that cannot be part of the token, or a JSON escape such as \n, since the
// patterns run over a log's raw JSON lines. The second group is the token.
// Compiled on first use: only an export needs it, and compiling it at
// package init cost every start of the binary 47 KB.
var tokenShapes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_-]|\\[nrt])(` + strings.Join([]string{
		`sk-[A-Za-z0-9_-]{16,}`,           // OpenAI, Anthropic (sk-ant-…), DeepSeek, OpenRouter (sk-or-…)
		`gh[pousr]_[A-Za-z0-9]{30,}`,      // GitHub tokens
		`github_pat_[A-Za-z0-9_]{22,}`,    // GitHub fine-grained tokens
		`(?:AKIA|ASIA)[0-9A-Z]{16}`,       // AWS access key ids
		`xox[abprs]-[A-Za-z0-9-]{10,}`,    // Slack tokens
		`AIza[0-9A-Za-z_-]{35}`,           // Google API keys
		`glpat-[A-Za-z0-9_-]{20,}`,        // GitLab tokens
		`Bearer [A-Za-z0-9._~+/-]{16,}=*`, // HTTP bearer credentials
		`-----BEGIN [A-Z ]*PRIVATE KEY-----[^"]*?-----END [A-Z ]*PRIVATE KEY-----`, // PEM private keys
	}, "|") + `)`)
})

// Redactor replaces secrets in a session log's bytes with
// sandbox.Redacted: the values of the keys this machine knows (as the
// engine withholds them from commands: sandbox.Secrets) and any
// token-shaped string. The replacement holds no quote or backslash, so a
// redacted JSON line stays valid JSON.
type Redactor struct {
	known *sandbox.Secrets
}

// NewRedactor redacts the values known holds, and token shapes. A nil
// known redacts token shapes only.
func NewRedactor(known *sandbox.Secrets) *Redactor { return &Redactor{known: known} }

// Redact returns data with every secret replaced.
func (r *Redactor) Redact(data []byte) []byte {
	text := r.known.Redact(string(data))
	return []byte(tokenShapes().ReplaceAllStringFunc(text, func(m string) string {
		sub := tokenShapes().FindStringSubmatch(m)
		keep := sub[1]
		if strings.HasPrefix(sub[2], "Bearer ") {
			keep += "Bearer "
		}
		return keep + sandbox.Redacted
	}))
}
