// Package secretfile says which files hold secrets — credentials, keys,
// tokens — that the agent does not read, search, change or show to
// commands unless the user allows them by pattern. Key invariant: the
// decision is by name (and, for package-manager config, by a token line
// in it), never by asking the model.
//
// Secret by default (base names; case-insensitive):
//
//   - .env, .env.* and *.env — but not .env.example, .env.sample,
//     .env.template, .env.dist (templates without values);
//   - *.pem, *.key, *.p12, *.pfx, *.jks, *.keystore;
//   - SSH private keys: id_rsa, id_dsa, id_ecdsa, id_ed25519 (and their
//     _sk variants, and names that start so, like id_rsa_work) — not *.pub;
//   - credentials, credentials.json (.aws/credentials, gcloud's), .netrc,
//     _netrc, .pgpass, .git-credentials;
//   - .npmrc, .yarnrc.yml and .pypirc only when they hold a token or
//     password line: most hold registry settings a build needs.
//
// Files under a testdata directory are test fixtures (Go's convention):
// a test suite that reads its throwaway key pairs must keep working in
// the sandbox, so they are not secret by default.
package secretfile

import (
	"bytes"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Rules are the secret-file rules of a session. The zero value treats
// every default secret as secret; Allow lets some through.
type Rules struct {
	// Allow are doublestar patterns, relative to the workspace with
	// forward slashes ("config/dev.env", "certs/*.pem", "**/.env.test"),
	// of secret files the user lets the agent use.
	Allow []string `json:"allow,omitempty"`
}

// Named reports whether the base name marks a secret file on its own;
// token reports whether it does only when the file holds a token line
// (TokenFile).
func Named(base string) (secret, token bool) {
	b := strings.ToLower(base)
	switch b {
	case ".env", "credentials", "credentials.json", ".netrc", "_netrc", ".pgpass", ".git-credentials":
		return true, false
	case ".npmrc", ".yarnrc.yml", ".pypirc":
		return false, true
	case ".env.example", ".env.sample", ".env.template", ".env.dist":
		return false, false
	}
	if strings.HasPrefix(b, ".env.") {
		return true, false
	}
	switch path.Ext(b) {
	case ".env", ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore":
		return true, false
	case ".pub":
		return false, false
	}
	for _, k := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if strings.HasPrefix(b, k) {
			return true, false
		}
	}
	return false, false
}

// TokenFile reports whether package-manager config holds a credential:
// a line setting _authToken, _auth, _password, npmAuthToken,
// npmAuthIdent or password.
func TokenFile(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		l := strings.ToLower(strings.TrimSpace(string(line)))
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";") {
			continue
		}
		key, _, ok := strings.Cut(l, "=")
		if !ok {
			key, _, ok = strings.Cut(l, ":")
		}
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		for _, k := range []string{"_authtoken", "_auth", "_password", "npmauthtoken", "npmauthident", "password"} {
			if key == k || strings.HasSuffix(key, ":"+k) || strings.HasSuffix(key, "/:"+k) {
				return true
			}
		}
	}
	return false
}

// maxTokenFile caps what is read of a package-manager config file.
const maxTokenFile = 1 << 20

// Secret reports whether the file at abs, whose path relative to the
// workspace is rel (forward slashes; "" when outside it), holds secrets
// and is not allowed. A package-manager config file is read to decide.
func (r *Rules) Secret(abs, rel string) bool {
	if Fixture(rel) {
		return false
	}
	secret, token := Named(filepath.Base(abs))
	if token {
		secret = tokenFileAt(abs)
	}
	return secret && !r.Allowed(rel)
}

// Fixture reports whether rel (relative to the workspace, forward
// slashes) lies under a testdata directory: a test fixture, not a secret.
func Fixture(rel string) bool {
	dir := path.Dir(rel)
	return dir != "." && (dir == "testdata" || strings.HasPrefix(dir, "testdata/") ||
		strings.HasSuffix(dir, "/testdata") || strings.Contains(dir, "/testdata/"))
}

// Allowed reports whether rel matches an Allow pattern.
func (r *Rules) Allowed(rel string) bool {
	if r == nil || rel == "" {
		return false
	}
	for _, p := range r.Allow {
		if ok, _ := doublestar.Match(p, rel); ok {
			return true
		}
	}
	return false
}

func tokenFileAt(abs string) bool {
	f, err := os.Open(abs)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFile))
	return err == nil && TokenFile(data)
}

// Validate reports the first Allow pattern that is not a valid pattern.
func (r *Rules) Validate() (string, bool) {
	for _, p := range r.Allow {
		if !doublestar.ValidatePattern(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "../") {
			return p, false
		}
	}
	return "", true
}
