package config_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/config"
)

func TestSaveSetup(t *testing.T) {
	noenv := func(string) string { return "" }
	for _, tc := range []struct {
		name, old string
		s         config.Setup
		want      []string // lines the file must hold
	}{
		{"no file", "", config.Setup{Provider: "deepseek", Key: `sk-"x"`}, []string{"[providers.deepseek]", `api_key = "sk-\"x\""`}},
		{"model and table added, comments kept", "# mine\n[[rules]]\npattern = [\"git\", \"push\"]\ndecision = \"ask\"\n",
			config.Setup{Provider: "kimi", Model: "kimi/kimi-k2.7-code", KeyCommand: "pass show kimi"},
			[]string{"# mine", `model = "kimi/kimi-k2.7-code"`, "[providers.kimi]", `api_key_command = "pass show kimi"`, `decision = "ask"`}},
		{"existing table and model replaced", "model = \"deepseek-v4-pro\"\n[providers.openai] # work\nbase_url = \"http://x/v1\"\napi_key_command = \"old\"\n[sandbox]\nnetwork = true\n",
			config.Setup{Provider: "openai", Model: "openai/gpt-5.6-luna", Key: "sk-new"},
			[]string{`model = "openai/gpt-5.6-luna"`, "[providers.openai] # work", `api_key = "sk-new"`, `base_url = "http://x/v1"`, "network = true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			path, _ := config.Paths(home, "")
			if tc.old != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(tc.old), 0o644)
			}
			if err := config.SaveSetup(home, tc.s); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("the file is not 0600: %v %v", fi.Mode(), err)
			}
			b, _ := os.ReadFile(path)
			for _, w := range tc.want {
				if !strings.Contains(string(b), w+"\n") {
					t.Errorf("the file lacks %q:\n%s", w, b)
				}
			}
			if strings.Contains(string(b), "old") {
				t.Errorf("the old key source stayed:\n%s", b)
			}
			cfg, err := config.Load(home, "", noenv)
			if err != nil {
				t.Fatalf("the file does not load: %v\n%s", err, b)
			}
			if tc.s.Model != "" && cfg.Model != tc.s.Model {
				t.Errorf("model = %q, want %q", cfg.Model, tc.s.Model)
			}
			if tc.s.Key != "" {
				if c, err := cfg.Key(context.Background(), tc.s.Provider, ""); err != nil || c.Key != tc.s.Key {
					t.Errorf("key = %q, %v; want %q", c.Key, err, tc.s.Key)
				}
			}
		})
	}
}

func TestMissingKeyIsTyped(t *testing.T) {
	cfg, err := config.Load(t.TempDir(), "", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	_, err = cfg.Resolve("deepseek-v4-flash", "", "", fast)
	mk, ok := err.(*config.MissingKeyError)
	if !ok || mk.Provider != "deepseek" || !strings.Contains(err.Error(), "an API key is required for deepseek-v4-flash: pass --api-key or set DEEPSEEK") {
		t.Fatalf("err = %#v", err)
	}
}

func TestTUISettings(t *testing.T) {
	for _, tc := range []struct {
		toml string
		want config.TUI
	}{
		{"", config.TUI{Bell: true}},
		{"[tui]\nbell = false\ninline = true\n", config.TUI{Bell: false, Inline: true}},
	} {
		home := t.TempDir()
		path, _ := config.Paths(home, "")
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(tc.toml), 0o644)
		cfg, err := config.Load(home, "", func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		if got, err := cfg.TUI(); err != nil || got != tc.want {
			t.Errorf("%q: TUI() = %+v, %v; want %+v", tc.toml, got, err, tc.want)
		}
	}
}
