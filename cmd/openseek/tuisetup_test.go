package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

// A first run without a key, on the real binary in a real terminal: the
// UI asks for the model and the key (masked) instead of failing, stores
// the key 0600 in ~/.openseek/config.toml, starts the session with it,
// and the next start asks nothing. The key never shows on the screen.
func TestTUIFirstRunSetupInTmux(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("Keyed in."))
	const key = "sk-first-run-4242"
	// A provider of the user's whose key comes from a variable that is
	// not set: what a fresh machine looks like for any provider.
	cfg := filepath.Join(home, ".openseek", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	os.WriteFile(cfg, []byte(fmt.Sprintf("model = \"work/m1\"\n\n[providers.work] # the team's server\nbase_url = %q\napi_key_env = [\"WORK_KEY\"]\n\n[models.\"work/m1\"]\nwindow = 64000\n",
		strings.TrimSuffix(srv.URL(), "/chat/completions"))), 0o644)

	p := startTmux(t, ws, []string{"HOME=" + home}, "--session", "setup1", "tui")
	s := p.waitFor("Choose the model")
	t.Logf("the setup:\n%s", s)
	if !strings.Contains(s, "› work/m1") || !strings.Contains(s, "WORK_KEY") {
		t.Errorf("the setup does not offer the model that lacked a key, or say which variable it read:\n%s", s)
	}
	p.keys("Enter")
	p.waitFor("Paste your work API key")
	p.typeText(key)
	s = p.waitFor("•••")
	if strings.Contains(s, key) {
		t.Fatalf("the key shows on the screen:\n%s", s)
	}
	p.keys("Enter")
	p.waitFor("/help for commands")
	p.typeText("hello")
	p.keys("Enter")
	s = p.waitFor("— finished")
	if !strings.Contains(s, "Keyed in.") {
		t.Errorf("the session did not answer:\n%s", s)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer "+key {
		t.Errorf("the model was not asked with the stored key (%d requests)", len(reqs))
	}
	fi, err := os.Stat(cfg)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config.toml is not 0600: %v, %v", fi.Mode(), err)
	}
	b, _ := os.ReadFile(cfg)
	if !strings.Contains(string(b), "[providers.work] # the team's server\napi_key = \""+key+"\"\n") {
		t.Errorf("the key is not stored in the provider's table:\n%s", b)
	}
	quitTUI(t, p, ws)
	s = p.screen()
	if strings.Contains(s, key) {
		t.Errorf("the key was printed:\n%s", s)
	}
	p.tmux("kill-server")

	// The next start asks nothing.
	p = startTmux(t, ws, []string{"HOME=" + home}, "--session", "setup1", "tui")
	s = p.waitFor("/help for commands")
	if strings.Contains(s, "Choose the model") {
		t.Errorf("the second start asked again:\n%s", s)
	}
	quitTUI(t, p, ws)
}

// TestTUIFirstRunSetupAsOrdinaryUser runs the setup test again as an
// ordinary user (whose home is their own).
func TestTUIFirstRunSetupAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestTUIFirstRunSetupInTmux$")
}
