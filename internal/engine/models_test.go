package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/verify"
)

func TestModelInUse(t *testing.T) {
	host := func(model, configured string) *Host {
		home := t.TempDir()
		if configured != "" {
			os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
			if err := os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("model = \""+configured+"\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		h, err := NewHost(context.Background(), Options{Dir: t.TempDir(), Home: home, Model: model, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	for _, tc := range []struct{ flag, configured, want string }{
		{"kimi-k2", "glm-4.6", "kimi-k2"},
		{"", "glm-4.6", "glm-4.6"},
		{"", "", config.DefaultSpec},
	} {
		if got := host(tc.flag, tc.configured).ModelInUse(); got != tc.want {
			t.Errorf("--model %q, config %q: %q, want %q", tc.flag, tc.configured, got, tc.want)
		}
	}
}

func TestModelColumns(t *testing.T) {
	m := ModelInfo{Model: config.Model{Window: 128_000, Price: llm.Price{InputHit: 0.07, InputMiss: 0.27, Output: 1.1}}, Ready: true}
	if w, p, s := m.Columns(); w != "128k" || p != "$0.07/$0.27/$1.10" || s != "ready" {
		t.Errorf("columns %q %q %q", w, p, s)
	}
	if w, p, s := (ModelInfo{}).Columns(); w != "-" || p != "-" || s != "no key" {
		t.Errorf("columns of an unknown model %q %q %q", w, p, s)
	}
}

func TestDiagnoseReportsAHostThatCannotBeBuilt(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("model = \n"), 0o600)
	build := func() (*Host, error) {
		return NewHost(context.Background(), Options{Dir: t.TempDir(), Home: home, Getenv: func(string) string { return "" }})
	}
	checks := Diagnose(context.Background(), build)
	if len(checks) != 1 || checks[0].Name != "config" || checks[0].Status != "fail" ||
		!strings.Contains(checks[0].Detail, "config.toml") || !strings.HasSuffix(checks[0].Detail, "\nfix the file above; OpenSeek will not start until it parses") {
		t.Errorf("a config that does not parse: %+v", checks)
	}
	checks = Diagnose(context.Background(), func() (*Host, error) { return nil, errors.New("rules.toml: rule 2: bad pattern") })
	if len(checks) != 1 || checks[0].Name != "rules" || checks[0].Status != "fail" {
		t.Errorf("rules that do not parse: %+v", checks)
	}
}

func TestCheckScript(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n"), 0o644)
	home := t.TempDir()
	o := Options{Dir: dir, Home: home, Getenv: func(string) string { return "" }}
	if got, err := CheckScript(o); err != nil || got == "" || got != verify.Detect(dir).Script() {
		t.Errorf("detected check %q %v, want %q", got, err, verify.Detect(dir).Script())
	}
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[verify]\ncommand = \"make check\"\n"), 0o600)
	if got, err := CheckScript(o); err != nil || got != verify.NewCheck("make check").Script() {
		t.Errorf("configured check %q %v", got, err)
	}
	o.NoVerify = true
	if got, err := CheckScript(o); err != nil || got != "" {
		t.Errorf("--no-verify: %q %v", got, err)
	}
}
