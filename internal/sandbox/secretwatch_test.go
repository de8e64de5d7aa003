package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/secretfile"
)

// TestHelperHidesSecretFilesThatAppearLater: secret files created after
// the helper was built — by the host (a tool, the user), in a new
// directory, renamed over a hidden one, or by a command — read as empty
// in the next command, the one the helper's spare (made before they
// existed) would have run; templates and test fixtures stay readable.
func TestHelperHidesSecretFilesThatAppearLater(t *testing.T) {
	needHelper(t)
	t.Parallel()
	const secret = "sk-live-4242"
	ws := t.TempDir()
	pol := sandbox.DefaultPolicy(ws)
	pol.Secrets = &secretfile.Rules{}
	// Two commands: the helper is built and has made the spare for the
	// next.
	for range 2 {
		if out, code := run(t, &pol, ws, "echo ready"); code != 0 || out != "ready\n" {
			t.Fatalf("exit %d, %q", code, out)
		}
	}
	writeFiles(t, ws, map[string]string{
		".env":                 "API_KEY=" + secret + "\n",
		"deep/new/dir/id_rsa":  secret + "\n",
		".npmrc":               "//registry.npmjs.org/:_authToken=" + secret + "\n",
		".env.example":         "API_KEY=template\n",
		"testdata/fixture.pem": "fixture\n",
		"config/settings.json": "{}\n",
		"config/settings.env":  "K=" + secret + "\n",
	})
	out, code := run(t, &pol, ws, "cat .env deep/new/dir/id_rsa .npmrc .env.example testdata/fixture.pem config/settings.env; echo done")
	if code != 0 || strings.Contains(out, secret) {
		t.Errorf("secret files made on the host after the start: exit %d, %q", code, out)
	}
	if !strings.Contains(out, "API_KEY=template") || !strings.Contains(out, "fixture") {
		t.Errorf("a template or a fixture was hidden: %q", out)
	}
	// Replaced by a rename (an editor's save) over the hidden file.
	tmp := filepath.Join(ws, "staged")
	os.WriteFile(tmp, []byte("API_KEY="+secret+"-2\n"), 0o600)
	if err := os.Rename(tmp, filepath.Join(ws, ".env")); err != nil {
		t.Fatal(err)
	}
	if out, _ := run(t, &pol, ws, "cat .env; echo done"); strings.Contains(out, secret) {
		t.Errorf(".env replaced by a rename: %q", out)
	}
	// Written by a command, read by the next.
	if _, code := run(t, &pol, ws, "mkdir -p made && printf 'K="+secret+"\\n' > made/prod.env"); code != 0 {
		t.Fatalf("writing made/prod.env: exit %d", code)
	}
	if out, _ := run(t, &pol, ws, "cat made/prod.env; echo done"); strings.Contains(out, secret) || !strings.Contains(out, "done") {
		t.Errorf("a secret file a command wrote: %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "made/prod.env")); !strings.Contains(string(b), secret) {
		t.Errorf("made/prod.env on the host = %q", b)
	}
}

// BenchmarkSpawnHidingSecrets measures a command in a session's helper
// with secret files hidden (the engine's default) against one without:
// the difference is the per-command cost of hiding the secret files
// created since the last command (an inotify read and, for a spare, a
// round trip to the helper).
func BenchmarkSpawnHidingSecrets(b *testing.B) {
	ws := b.TempDir()
	for _, hide := range []bool{false, true} {
		name := "plain"
		if hide {
			name = "secrets"
		}
		b.Run(name, func(b *testing.B) {
			pol := sandbox.DefaultPolicy(ws)
			pol.Session = "bench-" + name
			if hide {
				pol.Secrets = &secretfile.Rules{}
			}
			defer pol.Release()
			spawnTrue(b, ws, &pol)
		})
	}
}

// TestHelperHidesSecretFilesAsOrdinaryUser runs it again as an ordinary
// user.
func TestHelperHidesSecretFilesAsOrdinaryUser(t *testing.T) {
	sandboxtest.AsOrdinaryUser(t, "^TestHelperHidesSecretFilesThatAppearLater$")
}
