package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openseek/openseek/internal/secretfile"
)

func TestSecretPaths(t *testing.T) {
	ws := t.TempDir()
	for name, body := range map[string]string{
		".env": "K=v", "sub/prod.env": "K=v", "sub/.env.example": "K=", "node_modules/pkg/key.pem": "k",
		".git/x.pem": "k", "main.go": "package main", "config/dev.env": "K=v", ".npmrc": "engine-strict=true",
	} {
		p := filepath.Join(ws, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o600)
	}
	got := secretPaths(Policy{Workspace: ws, Secrets: &secretfile.Rules{Allow: []string{"config/*.env"}}})
	var rel []string
	for _, p := range got {
		if r, err := filepath.Rel(ws, p); err == nil && filepath.IsLocal(r) {
			rel = append(rel, r)
		}
	}
	slices.Sort(rel)
	if want := []string{".env", "sub/prod.env"}; !slices.Equal(rel, want) {
		t.Errorf("secret paths %q, want %q", rel, want)
	}
}

// BenchmarkSecretWalk times the walk a sandbox makes when it starts to
// find the workspace's secret files (OPENSEEK_BENCH_TREE, else Go's
// sources: about 11,000 files).
func BenchmarkSecretWalk(b *testing.B) {
	root := os.Getenv("OPENSEEK_BENCH_TREE")
	if root == "" {
		root = "/usr/local/go/src"
	}
	if _, err := os.Stat(root); err != nil {
		b.Fatalf("benchmark tree %s: %v", root, err)
	}
	p := Policy{Workspace: root, Secrets: &secretfile.Rules{}}
	for b.Loop() {
		secretPaths(p)
	}
}
