package main

import (
	"fmt"
	"github.com/openseek/openseek/internal/e2etest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
)

// tmuxPane drives the real binary in a real terminal (tmux on its own
// socket).
type tmuxPane struct {
	t      *testing.T
	socket string
}

func startTmux(t *testing.T, dir string, env []string, args ...string) *tmuxPane {
	t.Helper()
	e2etest.Need(t, "apt-get install tmux", "tmux")
	p := &tmuxPane{t: t, socket: fmt.Sprintf("openseek-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	argv := []string{"env", "-i", "OPENSEEK_TEST_MAIN=1", "TERM=xterm-256color", "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1"}
	argv = append(append(argv, env...), os.Args[0])
	argv = append(argv, args...)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	done := filepath.Join(dir, ".tui-exit")
	// The pane may start at tmux's default 80x24 and get its size a
	// moment later (seen on a busy machine): the UI would draw a frame
	// at the wrong size first, which inline mode leaves in the
	// scrollback. It starts once the terminal has its size.
	script := fmt.Sprintf("while [ \"$(stty size)\" != '30 100' ]; do sleep 0.05; done; cd '%s' && %s; echo $? > '%s'; sleep 30", dir, strings.Join(quoted, " "), done)
	p.tmux("new-session", "-d", "-x", "100", "-y", "30", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p *tmuxPane) screen() string { return p.tmux("capture-pane", "-p") }

// waitFor polls the screen until it shows want (a deadline, not a timed
// assertion: the test fails only when the UI never shows it).
func (p *tmuxPane) waitFor(want string) string {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := p.screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen never showed %q:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitForAfter polls the screen until it shows want below the last
// anchor: for a line that an earlier turn already put on the screen
// ("— finished"), the one that follows the newest answer.
func (p *tmuxPane) waitForAfter(anchor, want string) string {
	p.t.Helper()
	var s string
	p.waitUntil(func() bool {
		s = p.screen()
		i := strings.LastIndex(s, anchor)
		return i >= 0 && strings.Contains(s[i+len(anchor):], want)
	}, fmt.Sprintf("the screen to show %q below %q", want, anchor))
	return s
}

func (p *tmuxPane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", "0"}, keys...)...) }

func (p *tmuxPane) typeText(s string) { p.tmux("send-keys", "-t", "0", "-l", s) }

// The real binary in a real terminal: a task runs to its answer, a steer
// typed mid-turn reaches the model, an approval is answered from the
// dialog, Ctrl-C twice quits and the session log is complete.
func TestTUIInTmux(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		// The command runs until the test lets it end (go.flag), after the
		// steer was taken: on a busy machine a fixed pause could end first.
		llmtest.Reply{Reasoning: "first a pause", Calls: []llmtest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"while [ ! -f go.flag ]; do sleep 0.05; done; echo slept-well"}`}}},
		llmtest.Reply{Reasoning: "now the file", Calls: []llmtest.Call{{ID: "c2", Name: "shell", Args: `{"cmd":"touch approved.txt"}`}}},
		llmtest.Reply{Text: "## Done\n\nAll **good**: the file exists.\n", ChunkSize: 4, Delay: 5 * time.Millisecond},
	)
	// ask mode asks about the touch, which the default (auto) runs
	// unasked in the sandbox (TestTUIAutoApprovals covers the default).
	p := startTmux(t, ws, []string{"HOME=" + t.TempDir()}, append(modelArgs(srv), "--approval", "ask", "--session", "tui1", "tui")...)
	p.waitFor("/help for commands")
	p.typeText("make the file")
	p.keys("Enter")
	p.waitFor("while [ ! -f go.flag ]")
	p.typeText("also check the tests")
	p.keys("Enter")
	p.waitFor("pending steer: also check the tests")
	if err := os.WriteFile(filepath.Join(ws, "go.flag"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p.waitFor("wants to run")
	p.keys("y")
	p.waitFor("All good: the file exists.")
	s := p.waitFor("— finished")
	t.Logf("final screen:\n%s", s)
	if strings.Contains(s, "pending steer") {
		t.Errorf("the steer stayed pending after steer_applied:\n%s", s)
	}
	if !strings.Contains(s, "↳ also check the tests") {
		t.Errorf("the applied steer is not shown:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(ws, "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[1].Body), "also check the tests") {
		t.Errorf("the steer did not reach the model's second request (%d requests)", len(reqs))
	}
	p.keys("C-c")
	p.waitFor("Press Ctrl-C again to quit")
	p.keys("C-c")
	deadline := time.Now().Add(30 * time.Second)
	var code []byte
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(ws, ".tui-exit")); err == nil && len(b) > 0 {
			code = b
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if strings.TrimSpace(string(code)) != "0" {
		t.Fatalf("the UI did not quit with status 0 (%q):\n%s", code, p.screen())
	}
	sess, err := session.NewStore(filepath.Join(ws, ".openseek", "sessions")).Load("tui1")
	if err != nil {
		sess, err = session.NewStore(filepath.Join(ws, ".openseek")).Load("tui1")
	}
	if err != nil {
		t.Fatalf("the session log: %v", err)
	}
	var kinds []string
	for _, e := range sess.Events {
		kinds = append(kinds, e.Item.ItemKind())
	}
	got := strings.Join(kinds, " ")
	for _, want := range []string{"user", "assistant", "tool_result", "terminal"} {
		if !strings.Contains(got, want) {
			t.Errorf("session log lacks %s: %s", want, got)
		}
	}
	if last, ok := sess.LastTerminal(); !ok || last.Kind != session.Finished {
		t.Errorf("the log's last turn did not finish: %+v (%s)", last, got)
	}
}

func (p *tmuxPane) exitCode(ws string) string {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(ws, ".tui-exit")); err == nil && len(b) > 0 {
			os.Remove(filepath.Join(ws, ".tui-exit"))
			return strings.TrimSpace(string(b))
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("the UI never exited:\n%s", p.screen())
	return ""
}

// SIGTERM ends the UI with the terminal restored (no alternate screen
// left on), and --continue shows the session's history from its log.
func TestTUISigtermAndResume(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("The answer is 42."))
	p := startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "tui")...)
	p.waitFor("/help for commands")
	p.typeText("what is the answer?")
	p.keys("Enter")
	p.waitFor("— finished")
	if on := strings.TrimSpace(p.tmux("display", "-p", "#{alternate_on}")); on != "1" {
		t.Errorf("the UI is not on the alternate screen: %q", on)
	}
	shell := strings.TrimSpace(p.tmux("display", "-p", "#{pane_pid}"))
	out, err := exec.Command("pgrep", "-P", shell).Output()
	if err != nil {
		t.Fatalf("find the UI process under %s: %v", shell, err)
	}
	var pid int
	fmt.Sscan(string(out), &pid)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.exitCode(ws); code != "0" {
		t.Errorf("SIGTERM exit status %s", code)
	}
	if on := strings.TrimSpace(p.tmux("display", "-p", "#{alternate_on}")); on != "0" {
		t.Errorf("the terminal was left on the alternate screen after SIGTERM")
	}
	exec.Command("tmux", "-L", p.socket, "kill-server").Run()

	// Bare openseek on a terminal is the UI.
	p = startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--continue")...)
	s := p.waitFor("resumed session")
	for _, want := range []string{"› what is the answer?", "The answer is 42."} {
		if !strings.Contains(s, want) {
			t.Errorf("the resumed session does not show %q:\n%s", want, s)
		}
	}
	p.keys("C-c")
	p.keys("C-c")
	if code := p.exitCode(ws); code != "0" {
		t.Errorf("exit status %s", code)
	}
}
