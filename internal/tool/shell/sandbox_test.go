package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// TestShellSandboxed checks that the shell tool runs commands inside
// env.Sandbox: the workspace is writable, .git is not, the network is off.
func TestShellSandboxed(t *testing.T) {
	env, _ := newEnv(t, false)
	if err := os.MkdirAll(filepath.Join(env.Workspace, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.Workspace, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pol := sandbox.DefaultPolicy(env.Workspace)
	env.Sandbox = &pol
	tests := []struct {
		name    string
		args    string
		wantErr bool
		want    string
	}{
		{"workspace writable", `{"cmd":"echo ok > out.txt && cat out.txt"}`, false, "ok\n<system>exit=0</system>"},
		{"git read-only", `{"cmd":"echo x >> .git/config"}`, true, "Read-only file system"},
		{"git read-only from its cwd", `{"cmd":"echo x >> config","cwd":".git"}`, true, "Read-only file system"},
		{"no network", `{"cmd":"exec 3<>/dev/tcp/127.0.0.1/9"}`, true, "Network is unreachable"},
		{"no new privileges", `{"cmd":"grep NoNewPrivs /proc/self/status"}`, false, "NoNewPrivs:\t1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, Shell(), env, tt.args)
			if got := r.Content.Text(); r.IsError != tt.wantErr || !strings.Contains(got, tt.want) {
				t.Fatalf("IsError %v, output %q; want %v and %q", r.IsError, got, tt.wantErr, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(env.Workspace, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config changed to %q", b)
	}
}

// TestShellSandboxedTimeoutKillsGroup checks that a sandboxed command that
// times out dies with the processes it started, even one in a session of
// its own. (Inside the sandbox's PID namespace $! is not a host pid: the
// processes are found by the name they were started under.)
func TestShellSandboxedTimeoutKillsGroup(t *testing.T) {
	env, _ := newEnv(t, false)
	pol := sandbox.DefaultPolicy(env.Workspace)
	env.Sandbox = &pol
	mark := fmt.Sprintf("openseek-shell-test-%d", time.Now().UnixNano())
	r := call(t, Shell(), env, `{"cmd":"(exec -a `+mark+` sleep 1000) & setsid bash -c 'exec -a `+mark+` sleep 1000' & wait","timeout_ms":1000}`)
	if got := r.Content.Text(); got != "error: shell command timed out after 1000ms" || !r.IsError {
		t.Errorf("got %q", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(named(t, mark)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := named(t, mark); len(left) > 0 {
		t.Fatalf("processes outlived the timed-out command: %v", left)
	}
}

// named returns the pids of the host's processes started as name (exec -a).
func named(t *testing.T, name string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.HasPrefix(string(b), name+"\x00") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestShellSandboxedAsOrdinaryUser runs the sandboxed shell tests again as
// an ordinary user, for whom every command once failed.
func TestShellSandboxedAsOrdinaryUser(t *testing.T) {
	sandboxtest.AsOrdinaryUser(t, "^TestShellSandboxed(TimeoutKillsGroup|Escalation)?$")
}

// TestShellSandboxedEscalation: in auto mode a command the sandbox
// contains runs in it unasked; the model's escalate request asks (with its
// justification) and, once allowed, runs outside the sandbox.
func TestShellSandboxedEscalation(t *testing.T) {
	env, _ := newEnv(t, false)
	pol := sandbox.DefaultPolicy(env.Workspace)
	env.Sandbox = &pol
	var asked []protocol.ApprovalRequested
	var b *policy.Broker
	b = policy.NewBroker(func(e protocol.Event) {
		if r, ok := e.(protocol.ApprovalRequested); ok {
			asked = append(asked, r)
			go b.Resolve(r.ID, policy.Answer{Allow: true})
		}
	})
	env.Guard = &policy.Guard{Policy: &policy.Policy{Mode: policy.ModeAuto, Workspace: env.Workspace, Sandboxed: true}, Broker: b}
	const probe = "grep NoNewPrivs /proc/self/status > out.txt; cat out.txt"
	if r := call(t, Shell(), env, `{"cmd":`+quote(probe)+`}`); r.IsError || !strings.Contains(r.Content.Text(), "NoNewPrivs:\t1") || len(asked) != 0 {
		t.Errorf("contained: %q, asked %d times", r.Content.Text(), len(asked))
	}
	r := call(t, Shell(), env, `{"cmd":`+quote(probe)+`,"escalate":true,"justification":"Do you want to check the privileges outside the sandbox?"}`)
	if r.IsError || !strings.Contains(r.Content.Text(), "NoNewPrivs:\t0") {
		t.Errorf("escalated: %q", r.Content.Text())
	}
	if len(asked) != 1 || !strings.Contains(asked[0].Detail, "check the privileges outside the sandbox") {
		t.Errorf("asked %+v", asked)
	}
}
