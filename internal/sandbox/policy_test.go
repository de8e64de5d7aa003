package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestDefaultPolicy(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GOMODCACHE", "")
	t.Setenv("GOPATH", "")
	p := DefaultPolicy("/w/proj/")
	if p.Workspace != "/w/proj" || p.Network || len(p.AllowEnv) != 0 {
		t.Fatalf("DefaultPolicy = %+v", p)
	}
	for _, want := range []string{os.TempDir(), "/tmp", "/dev/shm"} {
		if !slices.Contains(p.WritableRoots, filepath.Clean(want)) {
			t.Errorf("WritableRoots %q lack %s", p.WritableRoots, want)
		}
	}
	// The host's caches are overlaid, never written.
	for _, want := range []string{filepath.Join(home, ".cache"), filepath.Join(home, "go/pkg/mod"), filepath.Join(home, ".npm"), filepath.Join(home, ".cargo/registry")} {
		if !slices.Contains(p.Caches, filepath.Clean(want)) {
			t.Errorf("Caches %q lack %s", p.Caches, want)
		}
		if slices.Contains(p.WritableRoots, want) {
			t.Errorf("WritableRoots %q include the host cache %s", p.WritableRoots, want)
		}
	}
	if p.CacheDir != "/w/proj/.openseek/cache" {
		t.Errorf("CacheDir %q, want the workspace's .openseek/cache", p.CacheDir)
	}
	for _, bad := range []string{home, filepath.Join(home, ".cargo"), filepath.Join(home, "go")} {
		if slices.Contains(p.WritableRoots, bad) || slices.Contains(p.Caches, bad) {
			t.Errorf("WritableRoots %q or Caches %q include %s", p.WritableRoots, p.Caches, bad)
		}
	}
	for _, want := range []string{"/w/proj/.git", "/w/proj/.openseek", filepath.Join(home, ".openseek")} {
		if !slices.Contains(p.ReadOnly, want) {
			t.Errorf("ReadOnly %q lack %s", p.ReadOnly, want)
		}
	}
	t.Setenv("GOMODCACHE", "/mods")
	if p := DefaultPolicy("/w"); !slices.Contains(p.Caches, "/mods") {
		t.Errorf("GOMODCACHE not a cache: %q", p.Caches)
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name    string
		network bool
		flags   uintptr
	}{
		{"network off", false, syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET},
		{"network on", true, syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DefaultPolicy("/ws")
			p.Network = tt.network
			cmd := exec.Command("/bin/sh", "-c", "echo hi")
			cmd.Env = []string{"A=1", childEnv + "=stale"}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := p.Wrap(cmd); err != nil {
				t.Fatal(err)
			}
			if cmd.Path != "/proc/self/exe" || !slices.Equal(cmd.Args, []string{"openseek-sandbox", "/bin/sh", "-c", "echo hi"}) {
				t.Errorf("Path %q Args %q", cmd.Path, cmd.Args)
			}
			if !cmd.SysProcAttr.Setpgid || cmd.SysProcAttr.Cloneflags != tt.flags || len(cmd.SysProcAttr.UidMappings) != 1 || cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL {
				t.Errorf("SysProcAttr %+v", cmd.SysProcAttr)
			}
			if len(cmd.Env) != 2 || cmd.Env[0] != "A=1" || !strings.HasPrefix(cmd.Env[1], childEnv+"=") {
				t.Fatalf("Env %q", cmd.Env)
			}
			var pl payload
			if err := json.Unmarshal([]byte(strings.TrimPrefix(cmd.Env[1], childEnv+"=")), &pl); err != nil {
				t.Fatal(err)
			}
			if pl.Path != "/bin/sh" || pl.Policy.Workspace != "/ws" || pl.Policy.Network != tt.network || !slices.Equal(pl.Policy.ReadOnly, p.ReadOnly) {
				t.Errorf("payload %+v", pl)
			}
		})
	}
}

func TestWrapRefuses(t *testing.T) {
	tests := []struct {
		name string
		p    Policy
		cmd  *exec.Cmd
		want string
	}{
		{"relative workspace", Policy{Workspace: "ws"}, exec.Command("/bin/true"), "not an absolute path"},
		{"no workspace", Policy{}, exec.Command("/bin/true"), "no workspace"},
		{"relative read-only", Policy{Workspace: "/ws", ReadOnly: []string{".git"}}, exec.Command("/bin/true"), "not absolute"},
		{"missing program", DefaultPolicy("/ws"), exec.Command("no-such-program-here"), "executable file not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Wrap(tt.cmd)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Wrap = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestWrapWithoutMain checks the guard against a program that forgot to
// call Main: its sandbox children would otherwise run the program itself.
func TestWrapWithoutMain(t *testing.T) {
	t.Setenv(childEnv, "{}")
	err := DefaultPolicy("/ws").Wrap(exec.Command("/bin/true"))
	if err == nil || !strings.Contains(err.Error(), "did not call sandbox.Main") {
		t.Fatalf("Wrap = %v", err)
	}
}
