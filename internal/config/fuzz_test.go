package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/config"
)

// FuzzLoad feeds arbitrary bytes as a workspace config file: Load must not
// panic, and a failure must name the file (or be a merged-config error).
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		"model = \"fast\"\n[profiles.fast]\ncandidates = [\"deepseek/deepseek-v4-flash\"]\n",
		"[providers.x]\nbase_url = \"http://h/v1\"\nheaders = { A = \"b\" }\nextra_body = { n = 1 }\n",
		"[models.\"ollama/q\"]\nwindow = 1\nprice = { output = 2 }\n",
		"[providers]\nx = 1\n", "providers = 3", "[[rules]]\nallow = \"ls\"\n", "a = \n",
		"[providers.openai]\nbase_url = \"http://h/v1\"\napi_key = \"k\"\n[fleet]\nnats = \"nats://h\"\n[sandbox]\nnetwork = true\n",
	} {
		f.Add([]byte(seed))
	}
	home, ws := f.TempDir(), f.TempDir()
	path := filepath.Join(ws, ".openseek", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// Untrusted (the trust filter drops keys) and trusted alike.
		for _, trusted := range []config.Trust{nil, config.TrustAll} {
			c, err := config.LoadTrusting(home, ws, env{}.get, trusted)
			if err != nil {
				var fe *config.FileError
				if c != nil || !errors.As(err, &fe) && !strings.HasPrefix(err.Error(), "config:") && !strings.HasPrefix(err.Error(), path) {
					t.Fatalf("error %q names neither the file nor the config", err)
				}
				continue
			}
			for name, p := range c.Providers {
				if p.Name != name || p.API == "" {
					t.Fatalf("provider %q = %+v", name, p)
				}
			}
			for spec, m := range c.Models {
				if m.Spec() != spec {
					t.Fatalf("model %q = %+v", spec, m)
				}
			}
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	home, ws := dirs(b, "", "[providers.x]\nbase_url = \"http://h/v1\"\n[models.\"x/m\"]\nwindow = 1\n[profiles.p]\ncandidates = [\"x/m\"]\n")
	for b.Loop() {
		if _, err := config.Load(home, ws, env{}.get); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	c, err := config.Load("", "", env{"OPENAI_API_KEY": "k"}.get)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.Resolve("openai/gpt-5", "", "", fast); err != nil {
			b.Fatal(err)
		}
	}
}
