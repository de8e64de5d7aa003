package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// `!cmd` in the UI, on the real binary with the sandbox on: the command
// runs through the session's shell tool, its output shows in the
// conversation, and the model's next request carries it. In plan mode a
// command that writes is refused as the model's would be, and nothing is
// written.
func TestTUIBangShellInTmux(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("I saw it."), llmtest.Text("Noted."))
	p := startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--session", "bang1", "tui")...)
	p.waitFor("/help for commands")
	p.typeText("!echo hi-from-$((40+2))")
	p.keys("Enter")
	s := p.waitFor("hi-from-42")
	t.Logf("after !echo:\n%s", s)
	if !strings.Contains(s, "exit 0") {
		t.Errorf("the card does not say the command exited 0:\n%s", s)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("`!` asked the model (%d requests)", n)
	}
	p.typeText("what did it print?")
	p.keys("Enter")
	if s := p.waitFor("— finished"); !strings.Contains(s, "I saw it.") {
		t.Errorf("the answer is not shown:\n%s", s)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "hi-from-42") || !strings.Contains(string(reqs[0].Body), "echo hi-from-$((40+2))") {
		t.Fatalf("the model's next request lacks the command and its output (%d requests)", len(reqs))
	}
	quitTUI(t, p, ws)
	p.tmux("kill-server")

	// Plan mode: the write is refused, and the model hears of the refusal.
	p = startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--session", "bang1", "--approval", "plan", "tui")...)
	s = p.waitFor("resumed session bang1")
	if !strings.Contains(s, "!echo hi-from-$((40+2))") || !strings.Contains(s, "hi-from-42") {
		t.Errorf("the resumed session does not show the `!` command and its output:\n%s", s)
	}
	p.typeText("!touch planned.txt")
	p.keys("Enter")
	s = p.waitFor("plan mode")
	t.Logf("after !touch in plan mode:\n%s", s)
	if _, err := os.Stat(filepath.Join(ws, "planned.txt")); err == nil {
		t.Errorf("plan mode let `!touch` write a file")
	}
	p.typeText("and now?")
	p.keys("Enter")
	if s := p.waitFor("— finished"); !strings.Contains(s, "Noted.") {
		t.Errorf("the answer is not shown:\n%s", s)
	}
	reqs = srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "touch planned.txt") || !strings.Contains(string(reqs[1].Body), "plan mode") {
		t.Errorf("the model was not told of the refused command (%d requests)", len(reqs))
	}
	quitTUI(t, p, ws)
}

// TestTUIBangShellAsOrdinaryUser runs the `!` test again as an ordinary user.
func TestTUIBangShellAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestTUIBangShellInTmux$")
}

// The shell command on the JSONL wire (`serve`, sandbox on): it runs
// before the prompt queued after it, its run is reported as a tool call
// with a user-shell id, the model's next request carries its output,
// and a blank one is a command_error.
func TestServeShellCommand(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("It said wire-2."))
	in := `{"command":"shell","cmd":"echo wire-$((1+1))"}` + "\n" +
		`{"command":"prompt","content":"what did it say?"}` + "\n" +
		`{"command":"shell","cmd":" "}` + "\n"
	r := openseek(t, ws, in, nil, append(modelArgs(srv), "serve")...)
	if r.code != 0 {
		t.Fatalf("serve exited %d: %s", r.code, r.stderr)
	}
	started, results := find[protocol.ToolStarted](r.events), find[protocol.ToolResult](r.events)
	if len(started) != 1 || !strings.HasPrefix(started[0].ToolCallID, "user-shell-") || started[0].ToolName != "shell" ||
		len(results) != 1 || !strings.Contains(results[0].Content, "wire-2") || results[0].IsError {
		t.Fatalf("the shell command's events: %v", names(r.events))
	}
	if errs := find[protocol.CommandError](r.events); len(errs) != 1 || !strings.Contains(errs[0].Error, `"cmd"`) {
		t.Errorf("a blank cmd got %+v", errs)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "wire-2") {
		t.Errorf("the model's request lacks the command's output (%d requests)", len(reqs))
	}
}
