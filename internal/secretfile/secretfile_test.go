package secretfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNamed(t *testing.T) {
	secret := []string{".env", ".env.local", ".env.production", "prod.env", ".ENV", "server.pem", "tls.key", "cert.p12", "cert.pfx",
		"release.jks", "id_rsa", "id_ed25519", "id_ecdsa_sk", "id_rsa_work", "credentials", "credentials.json", ".netrc", "_netrc",
		".pgpass", ".git-credentials"}
	plain := []string{".env.example", ".env.sample", ".env.template", ".env.dist", "id_rsa.pub", "id_ed25519.pub", "id_test.go",
		"env.go", "environment.ts", "keys.go", "README.md", "credentials.go", "key.txt"}
	for _, n := range secret {
		if s, _ := Named(n); !s {
			t.Errorf("%s is not seen as a secret", n)
		}
	}
	for _, n := range plain {
		if s, tok := Named(n); s || tok {
			t.Errorf("%s is seen as a secret", n)
		}
	}
	for _, n := range []string{".npmrc", ".yarnrc.yml", ".pypirc"} {
		if s, tok := Named(n); s || !tok {
			t.Errorf("%s: want a token file", n)
		}
	}
}

func TestTokenFile(t *testing.T) {
	tokens := []string{
		"//registry.npmjs.org/:_authToken=npm_abc\n",
		"registry=https://r.example/\n_auth = dXNlcjpwYXNz\n",
		"npmRegistries:\n  \"https://r.example\":\n    npmAuthToken: abc\n",
		"[pypi]\nusername = __token__\npassword = pypi-abc\n",
	}
	plain := []string{"engine-strict=true\nlegacy-peer-deps=true\n", "registry=https://r.example/\n", "# _authToken=commented\n", "nodeLinker: node-modules\n"}
	for _, s := range tokens {
		if !TokenFile([]byte(s)) {
			t.Errorf("no token found in %q", s)
		}
	}
	for _, s := range plain {
		if TokenFile([]byte(s)) {
			t.Errorf("a token found in %q", s)
		}
	}
}

func TestSecretAndAllow(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	r := &Rules{Allow: []string{"config/dev.env", "certs/*.pem"}}
	cases := []struct {
		rel, content string
		secret       bool
	}{
		{".env", "A=1", true},
		{"config/dev.env", "A=1", false},
		{"config/prod.env", "A=1", true},
		{"certs/a.pem", "k", false},
		{"certs/sub/a.pem", "k", true},
		{".npmrc", "//r/:_authToken=x", true},
		{"web/.npmrc", "engine-strict=true", false},
		{"main.go", "package main", false},
	}
	for _, c := range cases {
		if got := r.Secret(write(c.rel, c.content), c.rel); got != c.secret {
			t.Errorf("%s: secret=%v, want %v", c.rel, got, c.secret)
		}
	}
	if (*Rules)(nil).Allowed(".env") {
		t.Error("nil rules allow")
	}
	for _, bad := range []string{"/etc/passwd", "../x.env", "[.env"} {
		if _, ok := (&Rules{Allow: []string{bad}}).Validate(); ok {
			t.Errorf("%q accepted as a pattern", bad)
		}
	}
}

func TestFixturesAreNotSecret(t *testing.T) {
	dir := t.TempDir()
	var r Rules
	for rel, want := range map[string]bool{
		"testdata/server.pem":      false,
		"pkg/tls/testdata/key.pem": false,
		"pkg/testdata/a/b/.env":    false,
		"server.pem":               true,
		"testdata.pem":             true,
		"mytestdata/key.pem":       true,
		"testdatax/key.pem":        true,
		"config/testdata.d/.env":   true,
	} {
		if got := r.Secret(filepath.Join(dir, rel), rel); got != want {
			t.Errorf("Secret(%q) = %v, want %v", rel, got, want)
		}
	}
}
