package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

// bells counts the BELs the UI wrote to its terminal: everything the
// pane shows is copied to file (tmux pipe-pane) in order, and a BEL that
// ends an escape sequence (OSC … BEL) is no bell.
func (p *tmuxPane) bells(file string) func() int {
	p.tmux("pipe-pane", "-o", "cat >> '"+file+"'")
	osc := regexp.MustCompile(`\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)
	return func() int {
		b, _ := os.ReadFile(file)
		return strings.Count(osc.ReplaceAllString(string(b), ""), "\a")
	}
}

// waitUntil polls cond until it holds (a deadline, not a timed
// assertion: the test fails only when it never does).
func (p *tmuxPane) waitUntil(cond func() bool, what string) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			p.t.Fatalf("waited in vain for %s:\n%s", what, p.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tryTmux runs a tmux command that may fail.
func (p *tmuxPane) tryTmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	return string(out), err
}

// waitBells waits until at least n bells rang.
func waitBells(t *testing.T, count func() int, n int, p *tmuxPane) {
	t.Helper()
	p.waitUntil(func() bool { return count() >= n }, fmt.Sprintf("%d bells", n))
}

// waitPiped waits until the copy of the pane's output holds want: what
// the UI wrote before it is in the copy too.
func waitPiped(p *tmuxPane, file, want string) {
	p.t.Helper()
	p.waitUntil(func() bool {
		b, _ := os.ReadFile(file)
		return strings.Contains(string(b), want)
	}, "the pane's output to hold "+want)
}

// While a turn runs, Tab queues a message (shown as queued; Backspace on
// an empty input takes the last one back), and the queue runs when the
// turn ends — as a new turn, not folded into the running one. A finished
// turn and an approval request ring the bell; [tui] bell = false keeps
// it quiet.
func TestTUIQueueAndBellInTmux(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "c1", Name: "shell", Args: `{"cmd":"while [ ! -f go.flag ]; do sleep 0.05; done; echo released"}`}),
		llmtest.Text("One done."),
		llmtest.Calls(llmtest.Call{ID: "c2", Name: "shell", Args: `{"cmd":"touch asked.txt"}`}),
		llmtest.Text("Two done."),
		llmtest.Text("Three done."),
	)
	cfg := filepath.Join(home, ".openseek", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	os.WriteFile(cfg, []byte("[[rules]]\npattern = [\"touch\"]\ndecision = \"ask\"\n"), 0o644)
	p := startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--session", "queue1", "tui")...)
	bells := p.bells(filepath.Join(t.TempDir(), "bells"))
	p.waitFor("/help for commands")

	p.typeText("first task")
	p.keys("Enter")
	p.waitFor("while [ ! -f go.flag ]")
	p.typeText("second task")
	p.keys("Tab")
	p.waitFor("queued: second task")
	p.typeText("third task")
	p.keys("Tab")
	p.waitFor("queued: third task")
	p.keys("BSpace")
	s := p.waitFor("› third task")
	if strings.Contains(s, "queued: third task") {
		t.Fatalf("Backspace did not take the queued message back:\n%s", s)
	}
	for range len("third task") {
		p.keys("BSpace")
	}
	t.Logf("one message queued:\n%s", s)
	if n := bells(); n != 0 {
		t.Errorf("%d bells rang before anything happened", n)
	}

	os.WriteFile(filepath.Join(ws, "go.flag"), nil, 0o644)
	p.waitFor("One done.")
	p.waitFor("wants to run") // the queued message's turn asks about touch
	waitBells(t, bells, 2, p) // the first turn ended; the approval waits
	p.keys("y")
	s = p.waitFor("Two done.")
	waitBells(t, bells, 3, p)
	t.Logf("after the queue ran:\n%s", s)
	if strings.Contains(s, "queued:") || strings.Contains(s, "third task") {
		t.Errorf("the queue did not empty, or the removed message stayed:\n%s", s)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	if strings.Contains(string(reqs[1].Body), "second task") {
		t.Errorf("the queued message was folded into the running turn")
	}
	if !strings.Contains(string(reqs[2].Body), "second task") {
		t.Errorf("the queued message did not start the next turn")
	}
	for _, r := range reqs {
		if strings.Contains(string(r.Body), "third task") {
			t.Errorf("the message taken back from the queue was sent")
		}
	}
	quitTUI(t, p, ws)
	p.tmux("kill-server")

	// [tui] bell = false: a finished turn rings nothing.
	os.WriteFile(cfg, []byte("[tui]\nbell = false\n"), 0o644)
	p = startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--session", "queue1", "tui")...)
	piped := filepath.Join(t.TempDir(), "pane")
	bells = p.bells(piped)
	p.waitFor("/help for commands")
	p.typeText("third task")
	p.keys("Tab") // idle: Tab sends at once
	p.waitFor("Three done.")
	p.waitFor("— finished")
	// Whatever the UI wrote before the answer of a later command is in
	// the copy of its output by the time that answer is.
	p.typeText("/help")
	p.keys("Enter")
	p.waitFor("Commands:")
	waitPiped(p, piped, "Commands:")
	if n := bells(); n != 0 {
		t.Errorf("%d bells rang with bell = false", n)
	}
	quitTUI(t, p, ws)
}

// TestTUIQueueAndBellAsOrdinaryUser runs the queue test again as an
// ordinary user.
func TestTUIQueueAndBellAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestTUIQueueAndBellInTmux$")
}
