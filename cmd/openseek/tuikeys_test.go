package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

// The keys as people expect them, on the real binary in a real terminal
// (sandbox on): the header names the workspace, model, mode and session;
// Ctrl-C during a turn interrupts it and the UI stays; Esc in the
// approval dialog denies and the turn goes on with the model told;
// Ctrl-C twice quits and prints the command that resumes the session,
// which does.
func TestTUIKeysInTmux(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "c1", Name: "shell", Args: `{"cmd":"sleep 60 && echo slept > slept.txt"}`}),
		llmtest.Calls(llmtest.Call{ID: "c2", Name: "shell", Args: `{"cmd":"touch denied.txt"}`}),
		llmtest.Text("Understood, I left it alone."),
	)
	// The default mode (auto) runs the sleep in the sandbox unasked; a
	// rule makes touch ask.
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[[rules]]\npattern = [\"touch\"]\ndecision = \"ask\"\n"), 0o644)
	p := startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--session", "keys1", "tui")...)
	s := p.waitFor("/help for commands")
	t.Logf("the first screen:\n%s", s)
	for _, want := range []string{"OpenSeek · " + ws, "model test-model", "approval auto", "session keys1"} {
		if !strings.Contains(s, want) {
			t.Errorf("the first screen lacks %q:\n%s", want, s)
		}
	}

	p.typeText("wait a minute")
	p.keys("Enter")
	p.waitFor("sleep 60")
	if s := p.waitFor("working"); strings.Contains(s, "wants to run") {
		t.Fatalf("the sleep was asked about; it should be running:\n%s", s)
	}
	p.keys("C-c")
	s = p.waitFor("turn cancelled")
	if strings.Contains(s, "Press Ctrl-C again") {
		t.Errorf("Ctrl-C during a turn armed quitting:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(ws, ".tui-exit")); err == nil {
		t.Fatalf("Ctrl-C during a turn quit the UI:\n%s", p.screen())
	}

	p.typeText("make the file")
	p.keys("Enter")
	s = p.waitFor("wants to run")
	t.Logf("the approval dialog:\n%s", s)
	p.keys("Escape")
	s = p.waitFor("— finished")
	t.Logf("after Esc in the dialog:\n%s", s)
	if !strings.Contains(s, "Understood, I left it alone.") {
		t.Errorf("the turn did not go on after the denial:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(ws, "denied.txt")); err == nil {
		t.Errorf("the denied command ran")
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(strings.ToLower(string(reqs[2].Body)), "denied") {
		t.Errorf("the model was not told of the denial (%d requests)", len(reqs))
	}

	quitTUI(t, p, ws)
	s = p.waitFor("Resume this session:")
	t.Logf("after quitting:\n%s", s)
	m := regexp.MustCompile(`Resume this session: openseek (.*)`).FindStringSubmatch(s)
	if m == nil || strings.TrimSpace(m[1]) != "--session keys1" {
		t.Fatalf("the resume hint is not `openseek --session keys1`:\n%s", s)
	}
	p.tmux("kill-server")

	// The printed command line opens the session again, in the UI.
	p = startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), strings.Fields(m[1])...)...)
	s = p.waitFor("resumed session keys1")
	if !strings.Contains(s, "Understood, I left it alone.") {
		t.Errorf("the resumed session does not show its history:\n%s", s)
	}
	quitTUI(t, p, ws)
}

// TestTUIKeysAsOrdinaryUser runs the keys test again as an ordinary user.
func TestTUIKeysAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestTUIKeysInTmux$")
}
