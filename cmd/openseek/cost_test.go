package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// One rule decides a cost (llm.Price.Of, recorded with each response) and
// every face says the same: a priced model's cost is the same figure in
// `run` and `sessions show`; an unpriced model's is "cost unknown" in
// both, never a figure at another model's prices. The sandbox stays on.
func TestEveryFaceSaysTheSameCost(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Text("priced answer"), llmtest.Text("unpriced answer"))
	srv.MultiConversation()
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	conf := "model = \"local/m\"\n[providers.local]\nbase_url = \"" + strings.TrimSuffix(srv.URL(), "/chat/completions") + "\"\nno_key = true\n\n" +
		"[models.\"local/m\"]\nwindow = 128000\nprice = { input_hit = 1000, input_miss = 1000, output = 1000 }\n"
	if err := os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home}
	dollars := regexp.MustCompile(`cost \$[0-9.]+`)

	r := openseek(t, ws, "", env, "run", "--format", "text", "--session", "priced", "answer")
	if r.code != 0 {
		t.Fatalf("priced run: %d %s", r.code, r.stderr)
	}
	runCost := dollars.FindString(r.stdout + r.stderr)
	if runCost == "" || runCost == "cost $0.0000" {
		t.Fatalf("the priced run states no cost:\n%s%s", r.stdout, r.stderr)
	}
	show := openseek(t, ws, "", env, "sessions", "show", "priced", "--format", "text")
	if got := dollars.FindString(show.stdout); got != runCost {
		t.Errorf("run said %q, sessions show %q:\n%s", runCost, got, show.stdout)
	}
	// Selecting another model later does not re-price what was spent.
	show = openseek(t, ws, "", env, "--model", "deepseek-v4-pro", "sessions", "show", "priced", "--format", "text")
	if got := dollars.FindString(show.stdout); got != runCost {
		t.Errorf("with --model, sessions show says %q, run said %q", got, runCost)
	}

	// A model outside the catalogue and the config files has no known price.
	r = openseek(t, ws, "", env, "--api-url", srv.URL(), "--model", "other-model", "run", "--format", "text", "--session", "unpriced", "answer")
	if r.code != 0 {
		t.Fatalf("unpriced run: %d %s", r.code, r.stderr)
	}
	if out := r.stdout + r.stderr; !strings.Contains(out, "cost unknown") || dollars.MatchString(out) {
		t.Errorf("the unpriced run must say cost unknown:\n%s", out)
	}
	show = openseek(t, ws, "", env, "sessions", "show", "unpriced", "--format", "text")
	if !strings.Contains(show.stdout, "cost unknown") || dollars.MatchString(show.stdout) {
		t.Errorf("sessions show must say cost unknown for the unpriced session:\n%s", show.stdout)
	}
}
