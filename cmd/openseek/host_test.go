package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// An untrusted repository's allow rule must not make `rules check` say
// allow: it answers with the rules a session applies (the trust filter).
func TestRulesCheckAppliesTheTrustFilter(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(ws, ".openseek", "config.toml"), []byte("[[rules]]\npattern = [\"git\", \"push\"]\ndecision = \"allow\"\n"), 0o644)
	env := []string{"HOME=" + home}
	r := openseek(t, ws, "", env, "rules", "check", "--", "git push origin main")
	if r.code != 0 || strings.Contains(r.stdout, "allow [") || !strings.Contains(r.stderr, "ignored until you trust") {
		t.Errorf("untrusted allow rule counted: %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	if tr := openseek(t, ws, "", env, "trust"); tr.code != 0 {
		t.Fatalf("trust: %q", tr.stderr)
	}
	r = openseek(t, ws, "", env, "rules", "check", "--", "git push origin main")
	if r.code != 0 || !strings.Contains(r.stdout, "allow") || !strings.Contains(r.stdout, "config.toml:1") {
		t.Errorf("trusted allow rule not applied: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// Without --model the default model (a catalogue model) gets thinking
// "high", decided once the model is resolved, not from the raw flag.
func TestDefaultModelThinksHigh(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("ok"))
	r := openseek(t, t.TempDir(), "", []string{"DEEPSEEK_API_KEY=sk-test"}, "--api-url", srv.URL(), "run", "--no-session", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["model"] != "deepseek-v4-flash" || body["reasoning_effort"] != "high" {
		t.Errorf("default model request: model %v, reasoning_effort %v; want deepseek-v4-flash, high", body["model"], body["reasoning_effort"])
	}
	// An unknown model of an arbitrary server gets no reasoning knob.
	srv2 := llmtest.NewServer(t, llmtest.Text("ok"))
	r = openseek(t, t.TempDir(), "", nil, append(modelArgs(srv2), "run", "--no-session", "hi")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(string(srv2.Requests()[0].Body), "reasoning_effort") {
		t.Errorf("an unknown model was sent a reasoning knob: %s", srv2.Requests()[0].Body)
	}
}

// A run ends with turn_summary: the session, steps, usage and cost.
func TestRunEndsWithTurnSummary(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"true"}`}), llmtest.Text("done"))
	r := openseek(t, t.TempDir(), "", nil, append(modelArgs(srv), "--no-sandbox", "run", "go")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sums := find[protocol.TurnSummary](r.events)
	started := find[protocol.ToolStarted](r.events)
	if len(sums) != 1 || sums[0].Outcome != "finished" || sums[0].Steps != 2 || sums[0].Usage.TotalTokens == 0 || sums[0].Session == "" {
		t.Errorf("turn_summary %+v", sums)
	}
	if len(started) != 1 || started[0].ToolName != "shell" || !strings.Contains(started[0].Arguments, `"cmd":"true"`) {
		t.Errorf("tool_started %+v", started)
	}
}
