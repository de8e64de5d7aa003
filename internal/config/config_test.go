package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/llm"
)

// env is a fake environment.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// dirs makes a home and a workspace with the given config files ("" = none).
func dirs(t testing.TB, user, project string) (home, ws string) {
	t.Helper()
	home, ws = t.TempDir(), t.TempDir()
	for dir, text := range map[string]string{home: user, ws: project} {
		if text == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, ".openseek"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".openseek", "config.toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home, ws
}

func TestLoadBuiltins(t *testing.T) {
	home, ws := dirs(t, "", "")
	c, err := config.Load(home, ws, env{}.get)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 0 {
		t.Errorf("Files = %v, want none", c.Files)
	}
	want := map[string]struct{ api, base string }{
		"deepseek":   {"openai", "https://api.deepseek.com"},
		"kimi":       {"openai", "https://api.moonshot.ai/v1"},
		"glm":        {"openai", "https://api.z.ai/api/paas/v4"},
		"openai":     {"openai", "https://api.openai.com/v1"},
		"anthropic":  {"anthropic", "https://api.anthropic.com"},
		"openrouter": {"openai", "https://openrouter.ai/api/v1"},
		"ollama":     {"openai", "http://localhost:11434/v1"},
	}
	if len(c.Providers) != len(want) {
		t.Errorf("%d providers, want %d", len(c.Providers), len(want))
	}
	for name, w := range want {
		p := c.Providers[name]
		if p.Name != name || p.API != w.api || p.BaseURL != w.base {
			t.Errorf("%s = %+v, want api %s base %s", name, p, w.api, w.base)
		}
	}
	if !c.Providers["ollama"].NoKey {
		t.Error("ollama should need no key")
	}
}

func TestLoadEnvOverrides(t *testing.T) {
	tests := []struct {
		name, variable, value, provider, base string
	}{
		{"openai base", "OPENAI_BASE_URL", "https://proxy.example/v1/", "openai", "https://proxy.example/v1"},
		{"anthropic base", "ANTHROPIC_BASE_URL", "https://gw.example", "anthropic", "https://gw.example"},
		{"ollama host:port", "OLLAMA_HOST", "gpu-box:11500", "ollama", "http://gpu-box:11500/v1"},
		{"ollama bare host", "OLLAMA_HOST", "gpu-box", "ollama", "http://gpu-box:11434/v1"},
		{"ollama bind-all", "OLLAMA_HOST", "0.0.0.0", "ollama", "http://0.0.0.0:11434/v1"},
		{"ollama https", "OLLAMA_HOST", "https://ollama.example", "ollama", "https://ollama.example:443/v1"},
		{"ollama path", "OLLAMA_HOST", "http://h:80/ollama/", "ollama", "http://h:80/ollama/v1"},
		{"ollama ipv6", "OLLAMA_HOST", "[::1]:9", "ollama", "http://[::1]:9/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Load("", "", env{tt.variable: tt.value}.get)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Providers[tt.provider].BaseURL; got != tt.base {
				t.Errorf("base = %q, want %q", got, tt.base)
			}
		})
	}
}

func TestLoadMerge(t *testing.T) {
	user := `
model = "openai/gpt-5"
[providers.openai]
base_url = "https://user.example/v1"
headers = { X-User = "1" }

[providers.lmstudio]
base_url = "http://localhost:1234/v1"

[models."ollama/qwen3-coder"]
window = 32768
max_output = 4096

[profiles.fast]
candidates = ["deepseek/deepseek-v4-flash"]

[verify]
command = "make test"
timeout = "1m"
`
	project := `
model = "fast"
[providers.openai]
api_key_env = "PROJECT_OPENAI"

[models."ollama/qwen3-coder"]
window = 65536

[profiles.fast]
candidates = ["kimi/kimi-k2.7-code", "deepseek/deepseek-v4-flash"]

[verify]
timeout = "5m"

[sandbox]
enabled = false
`
	home, ws := dirs(t, user, project)
	c, err := config.LoadTrusting(home, ws, env{"OPENAI_BASE_URL": "https://env.example/v1"}.get, config.TrustAll)
	if err != nil {
		t.Fatal(err)
	}
	u, p := config.Paths(home, ws)
	if !reflect.DeepEqual(c.Files, []string{u, p}) {
		t.Errorf("Files = %v", c.Files)
	}
	if c.Model != "fast" {
		t.Errorf("Model = %q, want the project's", c.Model)
	}
	o := c.Providers["openai"]
	if o.BaseURL != "https://user.example/v1" {
		t.Errorf("openai base = %q: the user file should win over OPENAI_BASE_URL", o.BaseURL)
	}
	if !reflect.DeepEqual(o.APIKeyEnv, []string{"PROJECT_OPENAI"}) || o.Headers["X-User"] != "1" || o.API != "openai" {
		t.Errorf("openai = %+v: fields should merge one by one", o)
	}
	if lm := c.Providers["lmstudio"]; lm.API != "openai" || lm.BaseURL != "http://localhost:1234/v1" || lm.Name != "lmstudio" {
		t.Errorf("lmstudio = %+v", lm)
	}
	if m := c.Models["ollama/qwen3-coder"]; m.Window != 65536 || m.MaxOutput != 4096 || m.Provider != "ollama" || m.Name != "qwen3-coder" {
		t.Errorf("model = %+v: window from the project, max_output kept from the user", m)
	}
	if got := c.Profiles["fast"].Candidates; !reflect.DeepEqual(got, []string{"kimi/kimi-k2.7-code", "deepseek/deepseek-v4-flash"}) {
		t.Errorf("profile = %v, want the project's", got)
	}
	// A repository may never switch the sandbox off, trusted or not
	// (its network list counts once trusted: TestRepositoryKeys).
	wantRaw := map[string]any{
		"sandbox": map[string]any{},
		"verify":  map[string]any{"command": "make test", "timeout": "5m"},
	}
	if !reflect.DeepEqual(c.Raw, wantRaw) {
		t.Errorf("Raw = %#v, want %#v", c.Raw, wantRaw)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, project string
		want          []string // substrings of the error, after the path
	}{
		{"syntax", "[providers.openai]\nbase_url = \"x\n", []string{":2:", "strings cannot contain newlines"}},
		{"bad value", "x = \n", []string{":1:"}},
		{"unknown provider key", "[providers.openai]\nbase_ulr = \"https://x\"\n", []string{":2:13: unknown key providers.openai.base_ulr (did you mean base_url?); known keys: api, api_key,"}},
		{"wrong type", "\n[providers.openai]\nheaders = \"x\"\n", []string{":3:12: providers.openai.headers must be a table of strings"}},
		{"bad api", "[providers.x]\napi = \"grpc\"\n", []string{`:2:8: providers.x.api is "grpc"; use "openai", "anthropic" or "responses"`}},
		{"bad url", "[providers.x]\nbase_url = \"localhost:1234\"\n", []string{":2:13: providers.x.base_url", "http:// or https://"}},
		{"model key", "[models.qwen3]\nwindow = 1\n", []string{`:1:1: models.qwen3: a model is named "provider/model"`}},
		{"negative window", "[models.\"a/b\"]\nwindow = -1\n", []string{`:2:10: models."a/b".window must not be negative`}},
		{"unknown price key", "[models.\"ollama/b\"]\nprice = { input = 1 }\n", []string{`:2:11: unknown key models."ollama/b".price.input`}},
		{"empty profile", "[profiles.p]\ncandidates = []\n", []string{":2:15: profiles.p.candidates is empty"}},
		{"profile without candidates", "[profiles.p]\nmodels = [\"a/b\"]\n", []string{":1:1: profiles.p needs candidates", ":2:11: unknown key profiles.p.models"}},
		{"bad candidate", "[profiles.p]\ncandidates = [\"gpt-5\"]\n", []string{`"gpt-5" is not "provider/model"`}},
		{"several, in order", "[providers.b]\nzzz = 1\n[providers.a]\nyyy = 2\n", []string{":2:7: unknown key providers.b.zzz", ":4:7: unknown key providers.a.yyy"}},
		{"table expected", "providers = \"openai\"\n", []string{":1:14: providers must be a table"}},
		{"table of tables expected", "[providers]\nopenai = 1\n", []string{":2:10: providers.openai must be a table"}},
		{"unknown provider of a model", "[models.\"nope/m\"]\nwindow = 1\n", []string{`model "nope/m" names the unknown provider "nope"; known providers: anthropic, deepseek`}},
		{"unknown provider of a profile", "[profiles.p]\ncandidates = [\"nope/m\"]\n", []string{`profile "p" lists "nope/m", whose provider "nope" is unknown`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, ws := dirs(t, "", tt.project)
			c, err := config.Load(home, ws, env{}.get)
			if err == nil {
				t.Fatalf("no error; config %+v", c)
			}
			if c != nil {
				t.Error("a failed Load returned a config")
			}
			_, path := config.Paths(home, ws)
			msg := err.Error()
			if strings.Contains(tt.name, "unknown provider of") {
				path = "config:"
			}
			if !strings.HasPrefix(msg, path) {
				t.Errorf("error %q does not start with %s", msg, path)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if strings.Index(msg, tt.want[0]) > strings.Index(msg, tt.want[len(tt.want)-1]) {
				t.Errorf("errors out of file order: %q", msg)
			}
		})
	}
}

func TestLoadFileErrorType(t *testing.T) {
	home, ws := dirs(t, "[providers.x]\nbase_url = 3\n", "")
	_, err := config.Load(home, ws, env{}.get)
	var fe *config.FileError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is not a *FileError", err)
	}
	if user, _ := config.Paths(home, ws); fe.Path != user || fe.Line != 2 || fe.Col != 12 {
		t.Errorf("FileError = %+v", fe)
	}
}

func TestLoadUnreadable(t *testing.T) {
	home, ws := dirs(t, "", "")
	if err := os.MkdirAll(filepath.Join(ws, ".openseek", "config.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(home, ws, env{}.get); err == nil || !strings.Contains(err.Error(), "read config") {
		t.Errorf("err = %v, want a read error", err)
	}
}

func TestListModels(t *testing.T) {
	home, ws := dirs(t, `
[models."ollama/qwen3-coder"]
window = 262144
price = { input_miss = 0.5, output = 1 }
[profiles.p]
candidates = ["openrouter/qwen/qwen3-coder"]
`, "")
	c, err := config.Load(home, ws, env{}.get)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]config.Model{}
	for _, m := range c.List() {
		if _, dup := got[m.Spec()]; dup {
			t.Errorf("%s listed twice", m.Spec())
		}
		got[m.Spec()] = m
	}
	for _, spec := range []string{"deepseek/deepseek-v4-flash", "kimi/kimi-k2.7-code", "glm/glm-5.3", "ollama/qwen3-coder", "openrouter/qwen/qwen3-coder"} {
		if _, ok := got[spec]; !ok {
			t.Errorf("%s missing from List", spec)
		}
	}
	if m := got["ollama/qwen3-coder"]; m.Window != 262144 || m.Price != (llm.Price{InputMiss: 0.5, Output: 1}) {
		t.Errorf("configured model = %+v", m)
	}
	if m := got["openrouter/qwen/qwen3-coder"]; m.Window == 0 || m.Price.Output == 0 {
		t.Errorf("catalogue data missing for %+v", m)
	}
	var anthropic, openai int
	for spec := range got {
		anthropic += btoi(strings.HasPrefix(spec, "anthropic/"))
		openai += btoi(strings.HasPrefix(spec, "openai/"))
	}
	if anthropic == 0 || openai == 0 {
		t.Errorf("no suggested models of anthropic (%d) or openai (%d)", anthropic, openai)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
