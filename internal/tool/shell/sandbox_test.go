package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/sandbox"
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
// times out dies with the processes it started.
func TestShellSandboxedTimeoutKillsGroup(t *testing.T) {
	env, _ := newEnv(t, false)
	pol := sandbox.DefaultPolicy(env.Workspace)
	env.Sandbox = &pol
	r := call(t, Shell(), env, `{"cmd":"sleep 1000 & echo $! > child.pid; wait","timeout_ms":1000}`)
	if got := r.Content.Text(); got != "error: shell command timed out after 1000ms" || !r.IsError {
		t.Errorf("got %q", got)
	}
	waitPidGone(t, readPid(t, filepath.Join(env.Workspace, "child.pid")))
}
