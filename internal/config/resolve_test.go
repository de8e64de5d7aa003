package config_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

var fast = llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond}

func ask(t *testing.T, p llm.Provider) *llm.Response {
	t.Helper()
	resp, err := p.Stream(context.Background(), llm.Request{Model: "whatever-the-engine-says",
		Messages: []chat.Message{{Role: chat.User, Content: protocol.Text("hi")}}}, func(llm.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestResolveBuiltins(t *testing.T) {
	keys := env{"DEEPSEEK_API_KEY": "sk-d", "KIMI": "sk-k", "ZAI_API_KEY": "sk-g", "OPENAI_API_KEY": "sk-o",
		"ANTHROPIC_API_KEY": "sk-a", "OPENROUTER_API_KEY": "sk-r"}
	c, err := config.Load("", "", keys.get)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec, provider, model, wantSpec string
		window                          int
		missing                         string // the error without keys
	}{
		{"deepseek-v4-flash", "deepseek", "deepseek-v4-flash", "deepseek/deepseek-v4-flash", 128_000, "set DEEPSEEK (or DEEPSEEK_API_KEY)"},
		{"kimi-k2.7-code", "kimi", "kimi-k2.7-code", "kimi/kimi-k2.7-code", 256_000, "set KIMI (or KIMI_API_KEY, MOONSHOT_API_KEY)"},
		{"glm/glm-5.3", "glm", "glm-5.3", "glm/glm-5.3", 200_000, "set GLM (or ZAI_API_KEY)"},
		{"openai/gpt-5", "openai", "gpt-5", "openai/gpt-5", 400_000, "set OPENAI_API_KEY"},
		{"gpt-5", "openai", "gpt-5", "openai/gpt-5", 400_000, "set OPENAI_API_KEY"},
		{"anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", 200_000, "set ANTHROPIC_API_KEY"},
		{"openrouter/anthropic/claude-sonnet-4.5", "openrouter", "anthropic/claude-sonnet-4.5", "openrouter/anthropic/claude-sonnet-4.5", 1_000_000, "set OPENROUTER_API_KEY"},
		{"ollama/qwen3-coder", "ollama", "qwen3-coder", "ollama/qwen3-coder", 0, ""},
	}
	bare, _ := config.Load("", "", env{}.get)
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			r, err := c.Resolve(tt.spec, "", "", fast)
			if err != nil {
				t.Fatal(err)
			}
			if r.Provider != tt.provider || r.Model != tt.model || r.Spec != tt.wantSpec || r.Window != tt.window || r.Client == nil {
				t.Errorf("Resolve = %+v", r)
			}
			if tt.window > 0 && (r.MaxOutput <= 0 || r.Price.Output <= 0) {
				t.Errorf("no limits or price: %+v", r)
			}
			_, err = bare.Resolve(tt.spec, "", "", fast)
			if tt.missing == "" {
				if err != nil {
					t.Errorf("keyless provider: %v", err)
				}
				return
			}
			want := "an API key is required for " + tt.spec + ": pass --api-key or " + tt.missing
			if err == nil || err.Error() != want {
				t.Errorf("without a key: %v, want %q", err, want)
			}
			if _, err := bare.Resolve(tt.spec, "sk-flag", "", fast); err != nil {
				t.Errorf("with --api-key: %v", err)
			}
		})
	}
}

func TestResolveDefault(t *testing.T) {
	c, _ := config.Load("", "", env{"DEEPSEEK": "k"}.get)
	r, err := c.Resolve("", "", "", llm.RetryPolicy{})
	if err != nil || r.Spec != "deepseek/deepseek-v4-flash" {
		t.Fatalf("default = %+v, %v", r, err)
	}
	home, ws := dirs(t, `model = "ollama/llama3"`, "")
	c, _ = config.Load(home, ws, env{}.get)
	if r, err := c.Resolve("", "", "", fast); err != nil || r.Spec != "ollama/llama3" {
		t.Errorf("config default = %+v, %v", r, err)
	}
}

// TestResolveTalks drives resolved clients against a scripted server
// reached through the ecosystem's variables and a config file.
func TestResolveTalks(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("a"), llmtest.Text("b"), llmtest.Text("c"), llmtest.Text("d"))
	base := strings.TrimSuffix(srv.URL(), "/chat/completions")
	u, _ := url.Parse(srv.URL())
	home, ws := dirs(t, `
[providers.lmstudio]
base_url = "`+base+`"
headers = { X-Title = "OpenSeek" }

[providers.work]
base_url = "`+base+`"
api_key_command = "printf '  sk-from-command\n'"
`, "")
	c, err := config.Load(home, ws, env{"OPENAI_BASE_URL": base, "OPENAI_API_KEY": "sk-env", "OLLAMA_HOST": u.Host}.get)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ spec, wire, auth, header string }{
		{"openai/gpt-5", "gpt-5", "Bearer sk-env", ""},
		{"ollama/qwen3-coder", "qwen3-coder", "", ""},
		{"lmstudio/qwen2.5-coder", "qwen2.5-coder", "", "OpenSeek"},
		{"work/big", "big", "Bearer sk-from-command", ""},
	}
	for i, tt := range tests {
		r, err := c.Resolve(tt.spec, "", "", fast)
		if err != nil {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		ask(t, r.Client)
		req := srv.Requests()[i]
		if req.Model != tt.wire || req.Header.Get("Authorization") != tt.auth || req.Header.Get("X-Title") != tt.header {
			t.Errorf("%s sent model %q auth %q X-Title %q", tt.spec, req.Model, req.Header.Get("Authorization"), req.Header.Get("X-Title"))
		}
	}
}

func TestResolveAPIURL(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("a"))
	c, _ := config.Load("", "", env{}.get)
	r, err := c.Resolve("my-local-model", "", srv.URL(), fast)
	if err != nil {
		t.Fatal(err)
	}
	ask(t, r.Client)
	if got := srv.Requests()[0].Model; got != "my-local-model" || r.Spec != "my-local-model" {
		t.Errorf("sent %q, spec %q", got, r.Spec)
	}
}

func TestResolveUnknown(t *testing.T) {
	home, ws := dirs(t, `
[models."ollama/qwen3-coder"]
window = 1
[profiles.fast]
candidates = ["deepseek/deepseek-v4-flash"]
`, "")
	c, err := config.Load(home, ws, env{}.get)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec string
		want []string
	}{
		{"gpt-9", []string{`unknown model "gpt-9"`, "known providers: anthropic, deepseek, glm, kimi, ollama, openai, openrouter",
			"built-in models: deepseek-v4-flash, deepseek-v4-pro, kimi-k2.7-code", "configured models: ollama/qwen3-coder", "profiles: fast", "--api-url"}},
		{"acme/m1", []string{`unknown provider "acme" in "acme/m1"`, "known providers: anthropic,"}},
	}
	for _, tt := range tests {
		_, err := c.Resolve(tt.spec, "", "", fast)
		if err == nil {
			t.Fatalf("%s resolved", tt.spec)
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tt.spec, err, w)
			}
		}
	}
}

func TestResolveProfile(t *testing.T) {
	down := llmtest.NewServer(t, llmtest.Fail{Status: 503})
	up := llmtest.NewServer(t, llmtest.Text("hello"))
	home, ws := dirs(t, `
[providers.a]
base_url = "`+strings.TrimSuffix(down.URL(), "/chat/completions")+`"
[providers.b]
base_url = "`+strings.TrimSuffix(up.URL(), "/chat/completions")+`"
[models."b/m2"]
window = 1000
max_output = 100
[profiles.duo]
candidates = ["openai/gpt-5", "a/m1", "b/m2"]
`, "")
	c, err := config.Load(home, ws, env{}.get)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve("duo", "", "", fast)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0], "openai/gpt-5: an API key is required") {
		t.Errorf("Skipped = %v", r.Skipped)
	}
	if r.Spec != "duo" || r.Provider != "a" || r.Model != "m1" || r.Window != 1000 || r.MaxOutput != 100 {
		t.Errorf("Resolved = %+v", r)
	}
	resp := ask(t, r.Client)
	if resp.Model != "b/m2" || resp.Content != "hello" {
		t.Errorf("answered by %q: %q", resp.Model, resp.Content)
	}
	if _, err := c.Resolve("duo", "sk", "", fast); err == nil || !strings.Contains(err.Error(), "profile duo") {
		t.Errorf("--api-key with a profile: %v", err)
	}
	h2, w2 := dirs(t, "", "[profiles.p]\ncandidates = [\"openai/gpt-5\"]\n")
	onlyMissing, _ := config.Load(h2, w2, env{}.get)
	if _, err := onlyMissing.Resolve("p", "", "", fast); err == nil || !strings.Contains(err.Error(), "profile p has no usable model") {
		t.Errorf("no usable candidate: %v", err)
	}
}
