package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

// The real binary in a real terminal, sandbox on: the transcript shows no
// internals. A shell card says "exit 0", not the model's <system> footer;
// the base-URL warning shows once; a resumed session's snapshot markers
// (bookkeeping of the log) are no lines of the conversation.
func TestTUIShowsNoInternalsInTmux(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t,
		// The command writes a file, so the turn takes a snapshot (a turn of
		// read-only commands takes none) and the log has a marker to hide.
		llmtest.Calls(llmtest.Call{ID: "c1", Name: "shell", Args: `{"cmd":"echo shell-said-hi > said.txt && cat said.txt"}`}),
		llmtest.Text("It said hi."),
	)
	base := strings.TrimSuffix(srv.URL(), "/chat/completions")
	args := []string{"--api-url", base, "--model", "test-model", "--session", "tui-internals", "tui"}
	p := startTmux(t, ws, []string{"HOME=" + home}, args...)
	p.waitFor("/help for commands")
	p.typeText("say hi")
	p.keys("Enter")
	s := p.waitFor("— finished")
	t.Logf("live screen:\n%s", s)
	checkNoInternals(t, "live", s)
	quitTUI(t, p, ws)

	p = startTmux(t, ws, []string{"HOME=" + home}, args...)
	p.waitFor("resumed session tui-internals")
	// The start-up warning arrives on the stream after the history is drawn.
	s = p.waitFor("is a base URL")
	t.Logf("resumed screen:\n%s", s)
	checkNoInternals(t, "resumed", s)
	log, err := os.ReadFile(filepath.Join(ws, ".openseek", "sessions", "tui-internals", "openseek_session-tui-internals.jsonl"))
	if err != nil || !strings.Contains(string(log), "[snapshot] commit=") || !strings.Contains(string(log), "<system>exit=0</system>") {
		t.Errorf("the log should keep the marker and the footer (%v):\n%s", err, log)
	}
}

func checkNoInternals(t *testing.T, what, s string) {
	t.Helper()
	for _, bad := range []string{"<system>", "[snapshot]", "commit="} {
		if strings.Contains(s, bad) {
			t.Errorf("%s screen shows %q:\n%s", what, bad, s)
		}
	}
	if !strings.Contains(s, "exit 0") || !strings.Contains(s, "shell-said-hi") {
		t.Errorf("%s screen lacks the shell card's exit 0 and output:\n%s", what, s)
	}
	if n := strings.Count(s, "is a base URL"); n != 1 {
		t.Errorf("%s screen shows the base-URL warning %d times:\n%s", what, n, s)
	}
}

// quitTUI quits with Ctrl-C twice and waits for the exit status 0.
func quitTUI(t *testing.T, p *tmuxPane, ws string) {
	t.Helper()
	p.keys("C-c")
	p.waitFor("Press Ctrl-C again to quit")
	p.keys("C-c")
	exit := filepath.Join(ws, ".tui-exit")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(exit); err == nil && len(b) > 0 {
			if strings.TrimSpace(string(b)) != "0" {
				t.Fatalf("the UI quit with %q", b)
			}
			os.Remove(exit)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the UI did not quit:\n%s", p.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPolishAsOrdinaryUser runs the face tests above (the TUI in tmux,
// `tasks logs | head`) again as an ordinary user.
func TestPolishAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestTUIShowsNoInternalsInTmux|TestTasksLogsIntoAClosedPipe)$")
}
