package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestKeyVariables(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".openseek"), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "[providers.work]\napi = \"openai\"\nbase_url = \"http://localhost:1/v1\"\napi_key_env = [\"WORK_LLM\"]\n\n[providers.lit]\napi = \"openai\"\nbase_url = \"http://localhost:2/v1\"\napi_key = \"sk-literal-123456\"\n"
	if err := os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(home, t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	vars := c.KeyVariables()
	for _, want := range []string{"DEEPSEEK", "DEEPSEEK_API_KEY", "KIMI", "KIMI_API_KEY", "MOONSHOT_API_KEY", "GLM", "ZAI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "WORK_LLM"} {
		if !slices.Contains(vars, want) {
			t.Errorf("KeyVariables() = %q, missing %s", vars, want)
		}
	}
	if got := c.LiteralKeys(); !slices.Equal(got, []string{"sk-literal-123456"}) {
		t.Errorf("LiteralKeys() = %q", got)
	}
}
