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

// --inline on the real binary: the UI stays on the terminal's normal
// screen, and what a finished turn showed goes into the terminal's own
// scrollback once — not redrawn, so each line is there exactly once —
// while the next turn runs below it. [tui] inline = true does the same.
func TestTUIInlineInTmux(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	var long strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&long, "Paragraph %02d of the answer.\n\n", i)
	}
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "c1", Name: "shell", Args: `{"cmd":"echo from-the-tool"}`}),
		llmtest.Text(long.String()),
		llmtest.Text("Second answer."),
	)
	p := startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--session", "inline1", "tui", "--inline")...)
	p.waitFor("/help for commands")
	if on := strings.TrimSpace(p.tmux("display", "-p", "#{alternate_on}")); on != "0" {
		t.Fatalf("--inline is on the alternate screen")
	}
	p.typeText("write a lot")
	p.keys("Enter")
	p.waitFor("— finished")
	p.typeText("and more")
	p.keys("Enter")
	// The answer shows before its turn ends; Ctrl-C (quitTUI) before the
	// end would interrupt the turn instead of arming the quit.
	s := p.waitForAfter("Second answer.", "— finished")
	t.Logf("the screen:\n%s", s)
	all := p.tmux("capture-pane", "-p", "-S", "-", "-E", "-")
	for _, want := range []string{"OpenSeek · " + ws, "› write a lot", "│ from-the-tool", "Paragraph 01 of the answer.", "Paragraph 40 of the answer.", "› and more"} {
		if n := strings.Count(all, want); n != 1 {
			t.Errorf("the terminal holds %q %d times, want once:\n%s", want, n, all)
		}
	}
	// The frame itself never lands in the scrollback.
	if n := strings.Count(all, "Ask OpenSeek…"); n != 1 || strings.Contains(all, "working (Esc") {
		t.Errorf("old frames were left in the scrollback (%d inputs):\n%s", n, all)
	}
	if strings.Index(all, "Paragraph 40") > strings.Index(all, "› and more") {
		t.Errorf("the scrollback is out of order:\n%s", all)
	}
	quitTUI(t, p, ws)
	p.tmux("kill-server")

	// The config key does what the flag does.
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[tui]\ninline = true\n"), 0o644)
	p = startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--session", "inline1", "tui")...)
	p.waitFor("resumed session inline1")
	if on := strings.TrimSpace(p.tmux("display", "-p", "#{alternate_on}")); on != "0" {
		t.Errorf("[tui] inline = true is on the alternate screen")
	}
	quitTUI(t, p, ws)
}

// /copy puts the last answer, or one of its code blocks, on the
// clipboard by OSC 52 (tmux takes it into its paste buffer) and says so.
func TestTUICopyInTmux(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("Two ways:\n\n```sh\ngo test ./...\n```\n\nor\n\n```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\n"))
	p := startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "tui")...)
	p.tmux("set", "-g", "set-clipboard", "on")
	p.waitFor("/help for commands")
	p.typeText("how?")
	p.keys("Enter")
	p.waitFor("— finished")
	p.typeText("/copy 2")
	p.keys("Enter")
	p.waitFor("copied code block 2 of the last answer (3 lines)")
	if got := waitBuffer(t, p, "func main"); got != "func main() {\n\tprintln(\"hi\")\n}\n" {
		t.Errorf("the clipboard holds %q", got)
	}
	p.typeText("/copy")
	p.keys("Enter")
	p.waitFor("copied the last answer")
	if got := waitBuffer(t, p, "Two ways:"); !strings.HasPrefix(got, "Two ways:\n\n```sh\ngo test ./...\n```") {
		t.Errorf("the clipboard holds %q", got)
	}
	p.typeText("/copy 3")
	p.keys("Enter")
	p.waitFor("has 2 code blocks")
	quitTUI(t, p, ws)
}

// waitBuffer waits for tmux's newest paste buffer to hold want.
func waitBuffer(t *testing.T, p *tmuxPane, want string) string {
	t.Helper()
	var got string
	p.waitUntil(func() bool {
		out, err := p.tryTmux("show-buffer")
		got = out
		return err == nil && strings.Contains(out, want)
	}, "the paste buffer to hold "+want)
	return got
}

// TestTUIInlineAsOrdinaryUser runs the inline test again as an ordinary
// user.
func TestTUIInlineAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestTUI(Inline|Copy)InTmux$")
}
