package doctor_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/doctor"
)

func TestRun(t *testing.T) {
	var mu sync.Mutex
	var gotAuth, gotAnthropicKey string
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		if v := r.Header.Get("Authorization"); v != "" {
			gotAuth = v
		}
		if v := r.Header.Get("x-api-key"); v != "" {
			gotAnthropicKey = v
		}
		mu.Unlock()
		fmt.Fprint(w, `{"data":[{"id":"a"},{"id":"b"}]}`)
	}))
	defer ok.Close()
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"invalid key"}}`)
	}))
	defer refused.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer slow.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>Sign in</body></html>")
	}))
	defer page.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedHost := strings.TrimPrefix(closed.URL, "http://")
	closed.Close()

	home, ws := t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf(`
[providers.good]
base_url = "%s/v1"
api_key_env = "GOOD_KEY"
[providers.claude]
api = "anthropic"
base_url = "%s"
api_key_env = "CLAUDE_KEY"
[providers.bad]
base_url = "%s/v1"
api_key_env = "BAD_KEY"
[providers.slow]
base_url = "%s/v1"
api_key = "sk-literal-slow-key"
[providers.web]
base_url = "%s/v1"
api_key_env = "WEB_KEY"
[providers.broken]
base_url = "http://localhost:1/v1"
api_key_command = "exit 7"
`, ok.URL, ok.URL, refused.URL, slow.URL, page.URL)
	if err := os.MkdirAll(filepath.Join(home, ".openseek"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"GOOD_KEY": "sk-good-0123456789abcd", "CLAUDE_KEY": "sk-ant-99999999wxyz",
		"BAD_KEY": "sk-bad-000000000000", "WEB_KEY": "short", "OLLAMA_HOST": closedHost}
	getenv := func(k string) string { return vars[k] }
	client := &http.Client{Timeout: 300 * time.Millisecond}
	checks := doctor.Diagnose(context.Background(), home, ws, getenv, client)

	byName := map[string]doctor.Check{}
	for _, c := range checks {
		byName[c.Name] = c
		for k, v := range vars {
			if strings.HasSuffix(k, "_KEY") && len(v) > 5 && strings.Contains(c.Detail, v) {
				t.Errorf("%s prints a key: %q", c.Name, c.Detail)
			}
		}
		if strings.Contains(c.Detail, "sk-literal-slow-key") {
			t.Errorf("%s prints the literal key", c.Name)
		}
	}
	tests := []struct{ name, status, detail string }{
		{"config", "ok", filepath.Join(home, ".openseek", "config.toml")},
		{"key good", "ok", "from $GOOD_KEY (…abcd)"},
		{"endpoint good", "ok", "lists 2 models"},
		{"key claude", "ok", "…wxyz"},
		{"endpoint claude", "ok", "lists 2 models"},
		{"key bad", "ok", "$BAD_KEY"},
		{"endpoint bad", "fail", "the key from $BAD_KEY was refused (HTTP 401): it is wrong, expired or for another provider; replace it"},
		{"endpoint slow", "fail", "did not answer within"},
		{"key web", "ok", "5 characters"},
		{"endpoint web", "fail", "answered with a web page (HTTP 200), not the API"},
		{"key broken", "fail", "the api_key_command of provider broken (exit 7) failed: exit status 7"},
		{"key openai", "warn", "no API key: set OPENAI_API_KEY to use openai models"},
		{"key ollama", "ok", "no key needed"},
		{"endpoint ollama", "warn", "nothing is listening at http://" + closedHost + "/v1: start Ollama (ollama serve) or set OLLAMA_HOST"},
	}
	for _, tt := range tests {
		c, found := byName[tt.name]
		if !found {
			t.Errorf("no check %q", tt.name)
			continue
		}
		if c.Status != tt.status || !strings.Contains(c.Detail, tt.detail) {
			t.Errorf("%s = %s %q, want %s containing %q", tt.name, c.Status, c.Detail, tt.status, tt.detail)
		}
	}
	if _, probed := byName["endpoint broken"]; probed {
		t.Error("a provider whose key command failed was probed")
	}
	if _, probed := byName["endpoint openai"]; probed {
		t.Error("a provider without a key was probed")
	}
	mu.Lock()
	defer mu.Unlock()
	if gotAuth != "Bearer sk-good-0123456789abcd" || gotAnthropicKey != "sk-ant-99999999wxyz" {
		t.Errorf("probe credentials: Authorization %q, x-api-key %q", gotAuth, gotAnthropicKey)
	}
	if _, ok := byName["summary"]; ok {
		t.Error("summary failure although providers are ready")
	}
}

func TestDiagnoseMalformedConfig(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	path := filepath.Join(home, ".openseek", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("[providers.openai]\nbase_ulr = \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checks := doctor.Diagnose(context.Background(), home, ws, func(string) string { return "" }, nil)
	if len(checks) != 1 || checks[0].Status != "fail" || !strings.HasPrefix(checks[0].Detail, path+":2:") ||
		!strings.Contains(checks[0].Detail, "unknown key providers.openai.base_ulr") {
		t.Errorf("checks = %+v", checks)
	}
}

// An untrusted workspace's base_url is not probed (no request goes
// there): the config check warns, naming it, and the provider has none.
func TestDiagnoseUntrustedWorkspace(t *testing.T) {
	theirs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the workspace's base_url got %s %s", r.Method, r.URL)
	}))
	defer theirs.Close()
	home, ws := t.TempDir(), t.TempDir()
	path := filepath.Join(ws, ".openseek", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("[providers.theirs]\nbase_url = \""+theirs.URL+"/v1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	byName := map[string]doctor.Check{}
	for _, c := range doctor.Diagnose(context.Background(), home, ws, func(string) string { return "" }, nil) {
		byName[c.Name] = c
	}
	if c := byName["config"]; c.Status != "warn" || !strings.Contains(c.Detail, "ignored until you trust this workspace: providers.theirs.base_url") {
		t.Errorf("config check %+v", c)
	}
	if c := byName["endpoint theirs"]; c.Status != "fail" || !strings.Contains(c.Detail, "no base_url") {
		t.Errorf("endpoint check %+v", c)
	}
}

func TestNothingReady(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	host := strings.TrimPrefix(closed.URL, "http://")
	closed.Close()
	checks := doctor.Diagnose(context.Background(), "", "", func(k string) string {
		if k == "OLLAMA_HOST" {
			return host
		}
		return ""
	}, nil)
	last := checks[len(checks)-1]
	if last.Name != "summary" || last.Status != "fail" || !strings.Contains(last.Detail, "no provider is ready") {
		t.Errorf("last check = %+v", last)
	}
}

// A key that is set but whose host cannot be found is a network problem,
// not a missing key.
func TestKeySetButUnreachableIsNotAMissingKey(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[providers.deepseek]\nbase_url = \"http://no-such-host.invalid/v1\"\n"), 0o644)
	checks := doctor.Diagnose(context.Background(), home, t.TempDir(), func(k string) string {
		if k == "DEEPSEEK_API_KEY" {
			return "sk-0123456789abcdef"
		}
		return ""
	}, nil)
	last := checks[len(checks)-1]
	if last.Name != "summary" || strings.Contains(last.Detail, "set an API key") || !strings.Contains(last.Detail, "no provider could be reached") {
		t.Errorf("last check = %+v", last)
	}
}

// doctor with --api-url checks that endpoint, as run would use it.
func TestRunURLChecksTheEndpointRunUses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"data":[{"id":"m"}]}`))
	}))
	defer srv.Close()
	c, err := config.Load(t.TempDir(), t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	checks := doctor.RunURL(context.Background(), c, srv.URL+"/v1", "", nil)
	got := checks[len(checks)-1]
	if got.Status != "ok" || !strings.Contains(got.Detail, "lists 1 models") || !strings.Contains(checks[1].Detail, srv.URL+"/v1/chat/completions") {
		t.Errorf("checks = %+v", checks)
	}
	if bad := doctor.RunURL(context.Background(), c, "localhost:1/v1", "", nil); bad[len(bad)-1].Status != "fail" {
		t.Errorf("a URL without a scheme passed: %+v", bad)
	}
}
