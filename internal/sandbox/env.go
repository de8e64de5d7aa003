package sandbox

import (
	"path"
	"slices"
	"strings"
)

// Name parts that mark an environment variable as a secret, matched on
// the upper-cased name.
var (
	// secretSuffixes end a secret's name.
	secretSuffixes = []string{
		"_KEY", "_KEYS", "_TOKEN", "_TOKENS", "_SECRET", "_SECRETS",
		"_PASSWORD", "_PASSWD", "_PWD", "_PASS", "_CREDENTIALS", "_PAT",
		"_AUTH", "_COOKIE",
	}
	// secretNames are whole names of secrets, with the bare key
	// variables of the built-in providers (DEEPSEEK, KIMI, GLM).
	secretNames = []string{"TOKEN", "TOKENS", "CREDENTIALS", "DEEPSEEK", "KIMI", "GLM", "ZHIPU", "ZHIPUAI", "MOONSHOT"}
	// secretInfixes anywhere in a name mark it as a secret.
	secretInfixes = []string{
		"PASSWORD", "PASSWD", "SECRET", "KEY", "TOKEN", "CREDENTIAL",
	}
	// secretPrefixes start the names of whole families of credentials.
	secretPrefixes = []string{"AWS_"}
)

// IsSecretName reports whether an environment variable's name looks like
// it holds a secret (API keys, tokens, passwords, cloud credentials).
func IsSecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, s := range secretSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	if slices.Contains(secretNames, n) {
		return true
	}
	for _, s := range secretInfixes {
		if strings.Contains(n, s) {
			return true
		}
	}
	for _, s := range secretPrefixes {
		if strings.HasPrefix(n, s) {
			return true
		}
	}
	return false
}

// FilterEnv returns env ("NAME=value" entries) without the variables whose
// names look like secrets, except those matched by allow (exact names, or
// path.Match patterns such as "AWS_*"). Order is kept; env is not changed.
func FilterEnv(env []string, allow []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if IsSecretName(name) && !allowed(name, allow) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func allowed(name string, allow []string) bool {
	for _, a := range allow {
		if a == name {
			return true
		}
		if ok, err := path.Match(a, name); err == nil && ok {
			return true
		}
	}
	return false
}
