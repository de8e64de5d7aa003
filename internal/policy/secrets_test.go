package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/secretfile"
)

// TestSecretFilesRefused: with secret-file rules, reading or writing a
// secret file is refused in every mode, naming the key that allows it;
// an allowed one and ordinary files are not.
func TestSecretFilesRefused(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, ".env"), []byte("K=v"), 0o600)
	for _, mode := range []Mode{ModeNever, ModeAuto, ModePlan, ModeAlways, ModeFullAccess} {
		g := &Guard{Policy: &Policy{Mode: mode, Workspace: ws, Secrets: &secretfile.Rules{Allow: []string{"config/dev.env"}}}}
		ctx := context.Background()
		for _, p := range []string{".env", "keys/deploy.pem", "config/prod.env"} {
			abs := filepath.Join(ws, p)
			err := g.Read(ctx, "read", abs)
			if !IsRefusal(err) || !strings.Contains(err.Error(), "allow_secrets = [\""+p+"\"]") {
				t.Errorf("%s: read %s: %v", mode, p, err)
			}
			if err := g.Write(ctx, "write", abs); !IsRefusal(err) || !strings.Contains(err.Error(), "holds secrets") {
				t.Errorf("%s: write %s: %v", mode, p, err)
			}
		}
		for _, p := range []string{"config/dev.env", ".env.example", "main.go"} {
			if err := g.Read(ctx, "read", filepath.Join(ws, p)); err != nil {
				t.Errorf("%s: read %s: %v", mode, p, err)
			}
		}
	}
	// Without rules (a policy built by hand) nothing is a secret.
	if v := (&Policy{Workspace: ws}).CheckRead(filepath.Join(ws, ".env")); v.Decision != Allow {
		t.Errorf("no rules: %+v", v)
	}
}
