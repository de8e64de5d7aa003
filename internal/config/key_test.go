package config_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/config"
)

func TestKey(t *testing.T) {
	home, ws := dirs(t, `
[providers.cmd]
base_url = "http://localhost:1"
api_key_command = "echo '  sk-secret-1234 '"
api_key_env = "CMD_KEY"
[providers.failing]
base_url = "http://localhost:1"
api_key_command = "echo sk-leaked; exit 3"
[providers.silent]
base_url = "http://localhost:1"
api_key_command = "true"
[providers.literal]
base_url = "http://localhost:1"
api_key = "sk-literal"
[providers.local]
base_url = "http://localhost:1"
[providers.forced]
base_url = "http://localhost:1"
api_key_env = "FORCED"
no_key = true
`, "")
	c, err := config.Load(home, ws, env{"OPENAI_API_KEY": " sk-env ", "CMD_KEY": "sk-ignored", "FORCED": "x"}.get)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		provider, flag string
		want           config.Credential
		err            string
		ready          bool
	}{
		{"openai", "", config.Credential{Key: "sk-env", Source: "$OPENAI_API_KEY"}, "", true},
		{"openai", "sk-flag", config.Credential{Key: "sk-flag", Source: "--api-key"}, "", true},
		{"anthropic", "", config.Credential{}, "", false},
		{"cmd", "", config.Credential{Key: "sk-secret-1234", Source: "api_key_command"}, "", true},
		{"failing", "", config.Credential{}, "the api_key_command of provider failing (echo sk-leaked; exit 3) failed: exit status 3", true},
		{"silent", "", config.Credential{}, "printed no key", true},
		{"literal", "", config.Credential{Key: "sk-literal", Source: "api_key in a config file"}, "", true},
		{"local", "", config.Credential{}, "", true},
		{"forced", "", config.Credential{}, "", true},
		{"ollama", "", config.Credential{}, "", true},
		{"nope", "", config.Credential{}, `unknown provider "nope"`, false},
	}
	for _, tt := range tests {
		got, err := c.Key(context.Background(), tt.provider, tt.flag)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.provider, err, tt.err)
			}
			if err != nil && strings.Contains(err.Error(), "sk-leaked") && !strings.Contains(err.Error(), "(echo sk-leaked") {
				t.Errorf("%s: the command's output leaked: %v", tt.provider, err)
			}
		} else if err != nil || got != tt.want {
			t.Errorf("%s: Key = %+v, %v; want %+v", tt.provider, got, err, tt.want)
		}
		if r := c.Ready(tt.provider); r != tt.ready {
			t.Errorf("%s: Ready = %v, want %v", tt.provider, r, tt.ready)
		}
	}
	// A failing command stops Resolve with the command named, not its output.
	_, err = c.Resolve("failing/m", "", "", fast)
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || strings.Count(err.Error(), "sk-leaked") != 1 {
		t.Errorf("Resolve with a failing command: %v", err)
	}
}
