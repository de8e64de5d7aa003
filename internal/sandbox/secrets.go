package sandbox

import (
	"slices"
	"strings"
)

// minSecretLen is the shortest value treated as a secret: shorter ones
// would redact ordinary words, and no provider issues keys that short.
const minSecretLen = 8

// Redacted replaces a secret's value in tool output.
const Redacted = "[redacted secret]"

// Secrets are the credentials this process holds — provider keys from the
// environment, a config file or --api-key — by variable name and value.
// Commands get none of them in their environment, whatever the variable
// is called, and any value seen in tool output is replaced by [Redacted]
// before it reaches the model, the event stream or the session log. A nil
// *Secrets holds nothing.
type Secrets struct {
	names  []string
	values []string
	repl   *strings.Replacer
}

// NewSecrets holds the variables names (withheld from commands by name)
// and the secret values (withheld and redacted wherever they appear).
// Values shorter than 8 bytes are ignored.
func NewSecrets(names, values []string) *Secrets {
	s := &Secrets{names: slices.Clone(names)}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) >= minSecretLen && !slices.Contains(s.values, v) {
			s.values = append(s.values, v)
		}
	}
	// Longest first, so a key that contains another is replaced whole.
	slices.SortFunc(s.values, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(s.values))
	for _, v := range s.values {
		pairs = append(pairs, v, Redacted)
	}
	s.repl = strings.NewReplacer(pairs...)
	return s
}

// SecretsFromEnv collects the secrets of env ("NAME=value" entries): the
// values of every variable whose name looks like a secret ([IsSecretName])
// or is one of names, plus extra values (a key from a flag or a file).
func SecretsFromEnv(env, names, extra []string) *Secrets {
	values := slices.Clone(extra)
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if IsSecretName(name) || slices.Contains(names, name) {
			values = append(values, value)
		}
	}
	return NewSecrets(names, values)
}

// Env is env without secrets: [FilterEnv]'s secret-looking names, the
// names s holds, and any variable whose value contains a value s holds.
// allow names variables to keep anyway (as for FilterEnv).
func (s *Secrets) Env(env, allow []string) []string {
	out := FilterEnv(env, allow)
	if s == nil {
		return out
	}
	kept := out[:0]
	for _, kv := range out {
		name, value, _ := strings.Cut(kv, "=")
		if !allowed(name, allow) && (slices.Contains(s.names, name) || s.contains(value)) {
			continue
		}
		kept = append(kept, kv)
	}
	return kept
}

func (s *Secrets) contains(text string) bool {
	for _, v := range s.values {
		if strings.Contains(text, v) {
			return true
		}
	}
	return false
}

// Redact replaces every secret value in text with [Redacted].
func (s *Secrets) Redact(text string) string {
	if s == nil || len(s.values) == 0 {
		return text
	}
	return s.repl.Replace(text)
}
