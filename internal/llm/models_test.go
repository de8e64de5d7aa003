package llm_test

import (
	"reflect"
	"testing"

	"github.com/openseek/openseek/internal/llm"
)

func TestModels(t *testing.T) {
	tests := []struct {
		name, provider, url string
		keyEnv              []string
		window              int
	}{
		{"deepseek-v4-flash", "DeepSeek", "https://api.deepseek.com/chat/completions", []string{"DEEPSEEK", "DEEPSEEK_API_KEY"}, 128_000},
		{"deepseek-v4-pro", "DeepSeek", "https://api.deepseek.com/chat/completions", []string{"DEEPSEEK", "DEEPSEEK_API_KEY"}, 128_000},
		{"kimi-k2.7-code", "Kimi", "https://api.moonshot.ai/v1/chat/completions", []string{"KIMI", "KIMI_API_KEY", "MOONSHOT_API_KEY"}, 256_000},
		{"kimi-k2.7-code-highspeed", "Kimi", "https://api.moonshot.ai/v1/chat/completions", []string{"KIMI", "KIMI_API_KEY", "MOONSHOT_API_KEY"}, 256_000},
		{"glm-5.3", "Z.AI", "https://api.z.ai/api/paas/v4/chat/completions", []string{"GLM", "ZAI_API_KEY"}, 200_000},
		{"glm-5.3-flash", "Z.AI", "https://api.z.ai/api/paas/v4/chat/completions", []string{"GLM", "ZAI_API_KEY"}, 200_000},
	}
	all := llm.Models()
	if len(all) != len(tests) {
		t.Fatalf("%d models, want %d", len(all), len(tests))
	}
	for i, tt := range tests {
		m, ok := llm.LookupModel(tt.name)
		if !ok {
			t.Fatalf("%s missing", tt.name)
		}
		if all[i].Name != tt.name {
			t.Errorf("Models()[%d] = %s, want %s", i, all[i].Name, tt.name)
		}
		if m.Provider != tt.provider || m.URL != tt.url || !reflect.DeepEqual(m.KeyEnv, tt.keyEnv) || m.Window != tt.window {
			t.Errorf("%s = %+v", tt.name, m)
		}
		if m.MaxOutput <= 0 || m.MaxOutput > m.Window || m.Price.InputHit <= 0 || m.Price.InputHit >= m.Price.InputMiss || m.Price.Output <= 0 {
			t.Errorf("%s: implausible limits or price %+v", tt.name, m)
		}
		for _, mode := range []string{"no", "high", "max"} {
			if m.Thinking(mode) == nil {
				t.Errorf("%s: no mapping for thinking %q", tt.name, mode)
			}
		}
		if m.Thinking("") != nil {
			t.Errorf("%s: thinking \"\" should send nothing", tt.name)
		}
	}
	if _, ok := llm.LookupModel("gpt-4o"); ok {
		t.Error("gpt-4o is not in the catalogue")
	}
	all[0].Name = "changed"
	if llm.Models()[0].Name != "deepseek-v4-flash" {
		t.Error("Models() shares its slice")
	}
}

func TestModelKey(t *testing.T) {
	kimi, _ := llm.LookupModel("kimi-k2.7-code")
	tests := []struct {
		env           map[string]string
		wantKey, from string
	}{
		{map[string]string{}, "", ""},
		{map[string]string{"MOONSHOT_API_KEY": "m"}, "m", "MOONSHOT_API_KEY"},
		{map[string]string{"MOONSHOT_API_KEY": "m", "KIMI_API_KEY": "k2"}, "k2", "KIMI_API_KEY"},
		{map[string]string{"MOONSHOT_API_KEY": "m", "KIMI": "k", "KIMI_API_KEY": "k2"}, "k", "KIMI"},
		{map[string]string{"KIMI": "", "KIMI_API_KEY": "k2"}, "k2", "KIMI_API_KEY"},
	}
	for _, tt := range tests {
		key, from := kimi.Key(func(k string) string { return tt.env[k] })
		if key != tt.wantKey || from != tt.from {
			t.Errorf("env %v: got %q from %q, want %q from %q", tt.env, key, from, tt.wantKey, tt.from)
		}
	}
}

func TestThinking(t *testing.T) {
	tests := []struct {
		model, mode string
		want        map[string]any
	}{
		{"deepseek-v4-flash", "no", map[string]any{"thinking": map[string]any{"type": "disabled"}}},
		{"deepseek-v4-flash", "high", map[string]any{"thinking": map[string]any{"type": "enabled"}, "reasoning_effort": "high"}},
		{"deepseek-v4-pro", "max", map[string]any{"thinking": map[string]any{"type": "enabled"}, "reasoning_effort": "max"}},
		{"kimi-k2.7-code", "max", map[string]any{"thinking": map[string]any{"type": "enabled"}}},
		{"glm-5.3", "no", map[string]any{"thinking": map[string]any{"type": "enabled"}, "reasoning_effort": "low"}},
		{"glm-5.3-flash", "max", map[string]any{"thinking": map[string]any{"type": "enabled"}, "reasoning_effort": "high"}},
	}
	for _, tt := range tests {
		m, _ := llm.LookupModel(tt.model)
		if got := m.Thinking(tt.mode); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %s: %v, want %v", tt.model, tt.mode, got, tt.want)
		}
	}
	if got := llm.GenericThinking("max"); !reflect.DeepEqual(got, map[string]any{"reasoning_effort": "high"}) {
		t.Errorf("generic max: %v", got)
	}
	if got := llm.GenericThinking("no"); got != nil {
		t.Errorf("generic no: %v", got)
	}
}

func TestPriceCost(t *testing.T) {
	p := llm.Price{InputHit: 0.1, InputMiss: 1, Output: 2}
	if got := p.Cost(1_000_000, 500_000, 250_000); got < 1.0999 || got > 1.1001 {
		t.Errorf("Cost = %v, want 1.1", got)
	}
}

func TestPriceString(t *testing.T) {
	for _, tc := range []struct {
		p    llm.Price
		want string
	}{
		{llm.Price{}, "-"},
		{llm.Price{InputHit: 0.07, InputMiss: 0.27, Output: 1.1}, "$0.07/$0.27/$1.10"},
		{llm.Price{Output: 15}, "$0.00/$0.00/$15.00"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
