package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// TestAgentStaysInTheSandbox drives `openseek run` with a model that tries
// to leave the workspace through the shell: plant a git hook, rewrite the
// project's config, write outside the workspace, reach the agent's own
// command line. Every attempt fails and the workspace write succeeds —
// the sandbox a user gets by default, end to end.
func TestAgentStaysInTheSandbox(t *testing.T) {
	ws := t.TempDir()
	for name, body := range map[string]string{
		".git/config":           "[core]\n",
		".git/hooks/README":     "hooks\n",
		".openseek/config.toml": "",
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "planted")
	home := t.TempDir()
	attempts := []struct{ id, cmd string }{
		{"hook", "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"},
		{"config", "echo 'model = \"evil\"' > .openseek/config.toml"},
		{"outside", "echo x > " + outside},
		{"home", "echo x > " + filepath.Join(home, "planted")},
		{"parent", "cat /proc/$PPID/cmdline /proc/1/environ 2>&1 | grep -c sk-secret-key || true"},
		{"inside", "echo ok > inside.txt && cat inside.txt"},
	}
	var calls []llmtest.Call
	for _, a := range attempts {
		calls = append(calls, llmtest.Call{ID: a.id, Name: "shell", Args: `{"cmd":` + quoteJSON(a.cmd) + `}`})
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Calls: calls}, llmtest.Text("tried"))
	r := openseek(t, ws, "", []string{"HOME=" + home, "DEEPSEEK_API_KEY=sk-secret-key"}, append(modelArgs(srv), "run", "escape")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	results := map[string]protocol.ToolResult{}
	for _, tr := range find[protocol.ToolResult](r.events) {
		results[tr.ToolCallID] = tr
	}
	for _, id := range []string{"hook", "config", "outside", "home"} {
		if tr := results[id]; !strings.Contains(tr.Content, "<system>exit=") || strings.Contains(tr.Content, "<system>exit=0<") {
			t.Errorf("%s: the command seems to have succeeded: %q", id, tr.Content)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/hooks/pre-commit")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a git hook was planted: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".openseek/config.toml")); len(b) != 0 {
		t.Errorf("the project config was rewritten: %q", b)
	}
	for _, p := range []string{outside, filepath.Join(home, "planted")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written: %v", p, err)
		}
	}
	if c := results["parent"].Content; strings.Contains(c, "sk-secret-key") || !strings.Contains(c, "0") {
		t.Errorf("the key reached the command's view of the agent: %q", c)
	}
	if c := results["inside"].Content; !strings.Contains(c, "ok") {
		t.Errorf("the workspace write failed: %q", c)
	}
}

// TestAgentAsOrdinaryUser runs the end-to-end sandbox tests of the CLI
// again as an ordinary user, as most people run it.
func TestAgentAsOrdinaryUser(t *testing.T) {
	sandboxtest.AsOrdinaryUser(t, "^(TestAgentStaysInTheSandbox|TestRunEditsFilesAndRecordsTheSession|TestKilledRunResumes)$")
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
