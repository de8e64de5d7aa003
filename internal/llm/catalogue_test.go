package llm_test

import (
	"testing"

	"github.com/openseek/openseek/internal/llm"
)

func TestCatalogue(t *testing.T) {
	c := llm.LoadCatalogue()
	tests := []struct {
		provider, name, want string
		window               int
		hitBelowMiss         bool
	}{
		{"openai", "gpt-5", "gpt-5", 400_000, true},
		{"anthropic", "claude-sonnet-4-5", "claude-sonnet-4-5-20250929", 200_000, true}, // undated alias
		{"anthropic", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", 200_000, true},
		{"openrouter", "anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4.5", 1_000_000, true}, // dots and dashes
		{"openrouter", "qwen/qwen3-coder", "qwen/qwen3-coder", 262_144, false},
		{"moonshot", "kimi-k2.7-code", "kimi-k2.7-code", 0, false},
	}
	for _, tt := range tests {
		m, ok := c.Lookup(tt.provider, tt.name)
		if !ok || m.Name != tt.want || m.Provider != tt.provider {
			t.Errorf("Lookup(%s, %s) = %+v, %v", tt.provider, tt.name, m, ok)
			continue
		}
		if tt.window != 0 && m.Window != tt.window {
			t.Errorf("%s window = %d, want %d", tt.name, m.Window, tt.window)
		}
		if m.MaxOutput <= 0 || m.Price.InputMiss <= 0 || m.Price.Output <= 0 || m.Price.InputHit > m.Price.InputMiss {
			t.Errorf("%s: implausible %+v", tt.name, m)
		}
		if tt.hitBelowMiss && m.Price.InputHit >= m.Price.InputMiss {
			t.Errorf("%s: cache-hit price %v not below miss %v", tt.name, m.Price.InputHit, m.Price.InputMiss)
		}
	}
	if _, ok := c.Lookup("openai", "gpt-99"); ok {
		t.Error("found a model that does not exist")
	}
	if d := c.Defaults("anthropic"); len(d) == 0 {
		t.Error("no suggested anthropic models")
	}
	if len(c.Models("openai")) < 10 {
		t.Error("openai catalogue looks empty")
	}
	var nilCat *llm.Catalogue
	if _, ok := nilCat.Lookup("openai", "gpt-5"); ok {
		t.Error("nil catalogue found a model")
	}
}

func BenchmarkLoadCatalogue(b *testing.B) {
	for b.Loop() {
		llm.LoadCatalogue()
	}
}
