package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// [sandbox] network as a list gives the sandbox a proxy (no network of
// its own), and auto mode then runs network commands in the sandbox
// instead of asking to run them outside; a malformed entry stops the
// start naming the key; no list, no proxy.
func TestSandboxNetworkAllowlist(t *testing.T) {
	srv := llmtest.NewServer(t)
	home, ws := t.TempDir(), t.TempDir()
	cfg := filepath.Join(home, ".openseek", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	newE := func() (*Engine, error) {
		e, err := openRuntime(t, testOptions{Dir: ws, Home: home, Model: "m", APIURL: srv.URL(), Approval: "auto", Getenv: func(string) string { return "" }})
		if err == nil {
			t.Cleanup(func() { e.Close() })
		}
		return e, err
	}
	curl := "curl -s https://github.com/"

	e, err := newE()
	if err != nil {
		t.Fatal(err)
	}
	if e.netProxy != nil || e.sandboxPolicy.Proxy != nil {
		t.Fatalf("a proxy without an allowlist")
	}
	if v := e.guard.Policy.CheckCommand(curl); v.Decision.String() != "ask" {
		t.Errorf("no network: curl is %s, want ask", v.Decision)
	}

	os.WriteFile(cfg, []byte("[sandbox]\nnetwork = [\"github.com\", \"*.example.com:443\"]\n"), 0o644)
	if e, err = newE(); err != nil {
		t.Fatal(err)
	}
	if e.sandboxPolicy.Network || e.sandboxPolicy.Proxy == nil || strings.Join(e.netProxy.Allow.List(), " ") != "github.com *.example.com:443" {
		t.Fatalf("allowlist not applied: network %v, proxy %v", e.sandboxPolicy.Network, e.sandboxPolicy.Proxy)
	}
	if v := e.guard.Policy.CheckCommand(curl); v.Decision.String() != "allow" {
		t.Errorf("allowlist: curl is %s, want allow (in the sandbox, through the proxy)", v.Decision)
	}
	if err := e.AllowNetwork("bad host"); err == nil {
		t.Errorf("network_allow took a malformed entry")
	}

	for body, want := range map[string]string{
		"[sandbox]\nnetwork = [\"host:99999\"]\n": "[sandbox] network: network rule \"host:99999\"",
		"[sandbox]\nnetwork = [1]\n":              "sandbox.network: 1 is not a string",
		"[sandbox]\nnetwork = \"github.com\"\n":   "want true, false or a list",
	} {
		os.WriteFile(cfg, []byte(body), 0o644)
		if _, err := newE(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
