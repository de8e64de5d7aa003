package jobs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/sandbox"
)

// output runs spec to the end and returns its output.
func output(t *testing.T, spec Spec) (string, int) {
	t.Helper()
	p, err := Spawn(spec, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(100 * time.Millisecond)
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		t.Fatalf("%q did not finish", spec.Command)
	}
	out, err := p.Read(0, p.Output().Chars)
	if err != nil {
		t.Fatal(err)
	}
	return out, p.ExitCode()
}

// TestSecretsWithheld checks that secret-looking variables reach a command
// only when the policy allows them, sandboxed or not.
func TestSecretsWithheld(t *testing.T) {
	t.Setenv("OPENSEEK_TEST_API_KEY", "k-123")
	t.Setenv("OPENSEEK_TEST_PLAIN", "plain")
	ws := t.TempDir()
	pol := sandbox.DefaultPolicy(ws)
	allowing := pol
	allowing.AllowEnv = []string{"OPENSEEK_TEST_API_KEY"}
	tests := []struct {
		name string
		pol  *sandbox.Policy
		want string
	}{
		{"unsandboxed", nil, "key=- plain=plain pager=cat"},
		{"sandboxed", &pol, "key=- plain=plain pager=cat"},
		{"sandboxed and allowed", &allowing, "key=k-123 plain=plain pager=cat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := output(t, Spec{
				Command: `echo "key=${OPENSEEK_TEST_API_KEY--} plain=$OPENSEEK_TEST_PLAIN pager=$PAGER"; env | grep -c OPENSEEK_SANDBOX_CHILD`,
				Dir:     ws, Sandbox: tt.pol,
			})
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 2 || lines[0] != tt.want || lines[1] != "0" || code != 1 {
				t.Fatalf("exit %d, output %q, want %q and no sandbox marker", code, out, tt.want)
			}
		})
	}
}

// TestSandboxedJobStops checks that a sandboxed background job is stopped
// with its whole process group, and that its record shows the command.
func TestSandboxedJobStops(t *testing.T) {
	m, r := newTestManager(t, Options{})
	ws := t.TempDir()
	pol := sandbox.DefaultPolicy(ws)
	rec, err := m.Start(Spec{Command: "sleep 300 & echo $! > child.pid; wait", Dir: ws, Sandbox: &pol})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Command != "sleep 300 & echo $! > child.pid; wait" {
		t.Errorf("record command %q", rec.Command)
	}
	pidFile := filepath.Join(ws, "child.pid")
	var child int
	for deadline := time.Now().Add(10 * time.Second); child == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the sandboxed job wrote no pid")
		}
		b, _ := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if got := m.Stop(m.Generation(), rec.ID); got != "stopped" {
		t.Fatalf("Stop = %q", got)
	}
	final := r.waitFinal(t, rec.ID)
	if final.State.Kind != "stopped" {
		t.Errorf("final state %+v", final.State)
	}
	waitGone(t, child)
}
