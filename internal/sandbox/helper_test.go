package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/sandbox"
)

// needHelper skips a test of the helper itself where no helper is built:
// in sandboxtest.BothStartPaths' second pass, after the test passed on
// the helper path in the first, or where this Go release has the re-exec
// path only. The skip says which (sandbox.StartPath).
func needHelper(t *testing.T) {
	t.Helper()
	if helper, how := sandbox.StartPath(); !helper {
		t.Skip("this tests the sandbox helper, which this run does not build: " + how)
	}
}

// helperOf returns the pid of the sandbox helper serving workspace ws
// (the helper's working directory), or 0.
func helperOf(t *testing.T, ws string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.HasPrefix(string(b), "openseek-sandbox-helper\x00") {
			continue
		}
		// The helper is this process's child; its forks (spare
		// supervisors and their commands) look like it but are not.
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		_, after, _ := strings.Cut(string(stat), ") ")
		if f := strings.Fields(after); len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		if cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd"); err == nil && cwd == ws {
			return pid
		}
	}
	return 0
}

// waitDead waits until process pid has died with every process of its
// PID namespace: a zombie with no thread left but its leader (a leader
// shows "Z" while its other threads still exit) and no child.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	for range 2000 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		if strings.Contains(string(stat), ") Z ") && len(tasks) <= 1 && !hasChildren(pid) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("process %d did not die", pid)
}

// hasChildren reports whether any process has pid as its parent.
func hasChildren(pid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		_, after, _ := strings.Cut(string(stat), ") ")
		if f := strings.Fields(after); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			return true
		}
	}
	return false
}

// TestHelperServesCommands checks that commands of one policy share one
// helper (the sandbox is built once) and still each get their own PID
// namespace and exit status.
func TestHelperServesCommands(t *testing.T) {
	t.Parallel()
	needHelper(t)
	ws, pol := workspace(t)
	if out, code := run(t, &pol, ws, "echo first"); code != 0 || out != "first\n" {
		t.Fatalf("first command: exit %d, %q", code, out)
	}
	helper := helperOf(t, ws)
	if helper == 0 {
		t.Fatal("no sandbox helper serves the workspace after a command")
	}
	for i := range 5 {
		out, code := run(t, &pol, ws, fmt.Sprintf("echo $$; exit %d", i))
		if code != i || strings.TrimSpace(out) == "1" {
			t.Errorf("command %d: exit %d, output %q (want exit %d, a supervisor as pid 1)", i, code, out, i)
		}
	}
	if got := helperOf(t, ws); got != helper {
		t.Errorf("helper %d replaced by %d between commands", helper, got)
	}
}

// TestHelperConcurrent runs commands at once through one helper: each
// gets its own status.
func TestHelperConcurrent(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			out, code := run(t, &pol, ws, fmt.Sprintf("sleep 0.0%d; echo %d; exit %d", i%10, i, i))
			if code != i || strings.TrimSpace(out) != strconv.Itoa(i) {
				t.Errorf("command %d: exit %d, output %q", i, code, out)
			}
		})
	}
	wg.Wait()
}

// TestHelperKilledIsRebuilt kills the helper from outside, idle and
// with a command running: the running command reports that its sandbox
// died, and the next command gets a new helper — never no sandbox.
func TestHelperKilledIsRebuilt(t *testing.T) {
	t.Parallel()
	needHelper(t)
	ws, pol := workspace(t)
	if _, code := run(t, &pol, ws, "true"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	first := helperOf(t, ws)
	if first == 0 {
		t.Fatal("no helper")
	}
	syscall.Kill(first, syscall.SIGKILL)
	waitDead(t, first)
	out, code := run(t, &pol, ws, "grep -c Seccomp:.*2 /proc/self/status; echo rebuilt")
	if code != 0 || !strings.HasSuffix(out, "rebuilt\n") || strings.HasPrefix(out, "0") {
		t.Fatalf("after the helper was killed: exit %d, %q", code, out)
	}
	second := helperOf(t, ws)
	if second == 0 || second == first {
		t.Fatalf("helper %d, then %d: want a new one", first, second)
	}

	// Mid-command: the command dies with its sandbox and says why.
	p, err := jobs.Spawn(jobs.Spec{Command: "echo started; sleep 30", Dir: ws, Sandbox: &pol}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(0)
	deadline := time.Now().Add(10 * time.Second)
	for p.Output().Chars == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	syscall.Kill(second, syscall.SIGKILL)
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the command outlived its sandbox helper")
	}
	out, _ = p.Read(0, p.Output().Chars)
	if p.ExitCode() != 128+9 || !strings.Contains(out, "sandbox helper ended while the command ran") {
		t.Errorf("exit %d, output %q: want 137 and the reason", p.ExitCode(), out)
	}
	if out, code := run(t, &pol, ws, "echo again"); code != 0 || out != "again\n" {
		t.Errorf("after the helper died mid-command: exit %d, %q", code, out)
	}
}

// TestHelperSurvivesHostileCommands: a command that uses up its file
// descriptors or forks many processes and leaves them behind harms
// neither the helper nor the next command.
func TestHelperSurvivesHostileCommands(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	mark := unique(t)
	hostile := []string{
		// Opens descriptors until it cannot.
		`i=0; while exec {fd}</dev/null; do i=$((i+1)); [ $i -gt 100000 ] && break; done 2>/dev/null; echo "opened $i"`,
		// Leaves 100 processes behind.
		"for i in $(seq 100); do (exec -a " + mark + " sleep 300) & done; echo forked",
	}
	for _, cmd := range hostile {
		if out, code := run(t, &pol, ws, cmd); code != 0 {
			t.Fatalf("%q: exit %d, %q", cmd, code, out)
		}
	}
	waitGone(t, []string{mark}, time.Now().Add(10*time.Second))
	helper := helperOf(t, ws)
	if out, code := run(t, &pol, ws, "echo fine > "+filepath.Join(ws, "after")+"; cat after"); code != 0 || out != "fine\n" {
		t.Fatalf("next command: exit %d, %q", code, out)
	}
	if got := helperOf(t, ws); got != helper {
		t.Errorf("helper %d replaced by %d", helper, got)
	}
}

// TestHelperProtectsPathsThatAppearLater: a helper's mounts are built
// once, yet a protected path a command creates (`git init`) is read-only
// to every command after it.
func TestHelperProtectsPathsThatAppearLater(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	pol := sandbox.DefaultPolicy(ws)
	if out, code := run(t, &pol, ws, "mkdir -p .git/hooks && echo made"); code != 0 || out != "made\n" {
		t.Fatalf("first command: exit %d, %q", code, out)
	}
	out, code := run(t, &pol, ws, "echo pwned > .git/hooks/pre-commit")
	if code == 0 {
		t.Errorf("a hook was written into a .git made by an earlier command: %q", out)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/hooks/pre-commit")); err == nil {
		t.Errorf("the hook exists on the host")
	}
}

// TestPrepareLeavesTheWorkspaceAlone: the probe builds the helper and
// runs a command without creating anything in the workspace; the first
// real command then gets its private caches.
func TestPrepareLeavesTheWorkspaceAlone(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	pol := sandbox.DefaultPolicy(ws)
	if err := pol.Prepare(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(ws); len(ents) != 0 {
		t.Fatalf("the probe left %v in the workspace", ents)
	}
	if helper, _ := sandbox.StartPath(); helper && helperOf(t, ws) == 0 {
		t.Fatal("Prepare built no helper")
	}
	out, code := run(t, &pol, ws, `mkdir -p "$GOCACHE" && echo cached > "$GOCACHE/probe" && cat "$GOCACHE/probe"`)
	if code != 0 || out != "cached\n" {
		t.Fatalf("private cache: exit %d, %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(ws, ".openseek", "cache", "go-build", "probe")); err != nil {
		t.Errorf("the private cache is not in the workspace: %v", err)
	}
	if out, code := run(t, &pol, ws, "echo x > .openseek/planted"); code == 0 {
		t.Errorf(".openseek, made for the caches, is writable: %q", out)
	}
}

// TestHelperForkedSupervisors runs commands through a helper that forks
// its supervisors (ForkEnv), the path of other architectures.
func TestHelperForkedSupervisors(t *testing.T) {
	t.Setenv(sandbox.ForkEnv, "1")
	ws, pol := workspace(t)
	for i := range 4 {
		out, code := run(t, &pol, ws, fmt.Sprintf("echo $$; exit %d", i))
		if code != i || strings.TrimSpace(out) == "1" {
			t.Errorf("command %d: exit %d, output %q (want exit %d, a supervisor as pid 1)", i, code, out, i)
		}
	}
	if out, code := run(t, &pol, ws, "echo hi > .git/config"); code == 0 {
		t.Errorf("a forked supervisor's command wrote a protected path: %q", out)
	}
	if out, code := run(t, &pol, ws, "sleep 100 & echo started"); code != 0 || out != "started\n" {
		t.Errorf("background command: exit %d, %q", code, out)
	}
}

// TestCommandCannotReachTheHelpersMemory: a command's PID 1 is its
// supervisor, which may share the helper's memory; its memory, memory
// map and environment are out of the command's reach.
func TestCommandCannotReachTheHelpersMemory(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	for _, probe := range []string{
		"head -c 16 /proc/1/mem",
		"tail -c 16 /proc/1/maps",
		"cat /proc/1/environ",
		"exec 3<>/proc/1/mem",
	} {
		if out, code := run(t, &pol, ws, probe); code == 0 {
			t.Errorf("%s succeeded in the sandbox: %q", probe, out)
		}
	}
}

// TestExecFailureIsReported: a command that cannot be executed ends with
// status 126 and says why on its standard error, errno included — with
// the supervisors sharing the helper's memory and with forked ones.
func TestExecFailureIsReported(t *testing.T) {
	for _, fork := range []string{"", "1"} {
		t.Run("fork="+fork, func(t *testing.T) {
			t.Setenv(sandbox.ForkEnv, fork)
			ws, pol := workspace(t)
			notExec := filepath.Join(ws, "script.sh")
			if err := os.WriteFile(notExec, []byte("#!/bin/sh\necho ran\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(notExec)
			cmd.Dir = ws
			errFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
			if err != nil {
				t.Fatal(err)
			}
			defer errFile.Close()
			cmd.Stderr = errFile
			p, err := pol.Start(cmd)
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			code, err := p.Wait()
			if err != nil {
				t.Fatalf("wait: %v", err)
			}
			stderr, err := os.ReadFile(errFile.Name())
			if err != nil {
				t.Fatal(err)
			}
			want := "openseek sandbox: exec " + notExec + " failed; the command was not run (errno 13)\n"
			if helper, _ := sandbox.StartPath(); !helper {
				// Ordinary Go's words on the re-exec path.
				want = "openseek sandbox: exec " + notExec + ": fork/exec " + notExec + ": permission denied; the command was not run\n"
			}
			if code != 126 || string(stderr) != want {
				t.Errorf("exit %d, stderr %q; want 126, %q", code, stderr, want)
			}
		})
	}
}

// TestSessionsHaveTheirOwnTmp: without network, the commands of one
// session share a private /tmp (on the helper path: a file one step
// leaves is there for the next) and those of another session never see
// it; Release ends the session's helper, and its /tmp with it.
func TestSessionsHaveTheirOwnTmp(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	a, b := pol, pol
	a.Session, b.Session = unique(t), unique(t)
	t.Cleanup(a.Release)
	t.Cleanup(b.Release)
	if out, code := run(t, &a, ws, "echo secret > /tmp/left && cat /tmp/left"); code != 0 || out != "secret\n" {
		t.Fatalf("session a writes its /tmp: exit %d, %q", code, out)
	}
	if out, code := run(t, &b, ws, "cat /tmp/left"); code == 0 || strings.Contains(out, "secret") {
		t.Errorf("session b read session a's /tmp: exit %d, %q", code, out)
	}
	if helper, _ := sandbox.StartPath(); helper {
		if out, code := run(t, &a, ws, "cat /tmp/left"); code != 0 || out != "secret\n" {
			t.Errorf("session a's next command lost its /tmp: exit %d, %q", code, out)
		}
	}
	a.Release()
	if out, code := run(t, &a, ws, "cat /tmp/left"); code == 0 || strings.Contains(out, "secret") {
		t.Errorf("session a's /tmp outlived Release: exit %d, %q", code, out)
	}
}

// TestReleaseWaitsForRunningCommands: a released session's helper ends
// once its running command does, not under it.
func TestReleaseWaitsForRunningCommands(t *testing.T) {
	t.Parallel()
	needHelper(t)
	ws, pol := workspace(t)
	pol.Session = unique(t)
	if _, code := run(t, &pol, ws, "true"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	helper := helperOf(t, ws)
	if helper == 0 {
		t.Fatal("no helper")
	}
	fifo := filepath.Join(ws, "go-on")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	p, err := jobs.Spawn(jobs.Spec{Command: "read line < go-on; echo finished $line", Dir: ws, Sandbox: &pol}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(100 * time.Millisecond)
	pol.Release()
	// The command is still running (it waits on the fifo), so is its
	// helper; opening the fifo for writing waits for the command's read.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := syscall.Getpgid(helper); err != nil {
		t.Errorf("the helper ended under its running command: %v", err)
	}
	w.WriteString("ok\n")
	w.Close()
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the command did not finish")
	}
	if out, _ := p.Read(0, p.Output().Chars); p.ExitCode() != 0 || out != "finished ok\n" {
		t.Errorf("exit %d, %q", p.ExitCode(), out)
	}
	waitDead(t, helper)
}
