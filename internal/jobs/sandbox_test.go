package jobs

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
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
// with every process it started, even one in a session of its own, and
// that its record shows the command. (Inside the sandbox's PID namespace
// $! is not a host pid: the processes are found by the name they were
// started under.)
func TestSandboxedJobStops(t *testing.T) {
	m, r := newTestManager(t, Options{})
	ws := t.TempDir()
	pol := sandbox.DefaultPolicy(ws)
	mark := fmt.Sprintf("openseek-job-test-%d", time.Now().UnixNano())
	cmd := "(exec -a " + mark + " sleep 300) & setsid bash -c 'exec -a " + mark + " sleep 300' & wait"
	rec, err := m.Start(Spec{Command: cmd, Dir: ws, Sandbox: &pol})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Command != cmd {
		t.Errorf("record command %q", rec.Command)
	}
	for deadline := time.Now().Add(10 * time.Second); len(namedProcs(t, mark)) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the sandboxed job's processes did not start: %v", namedProcs(t, mark))
		}
	}
	if got := m.Stop(m.Generation(), rec.ID); got != "stopped" {
		t.Fatalf("Stop = %q", got)
	}
	final := r.waitFinal(t, rec.ID)
	if final.State.Kind != "stopped" {
		t.Errorf("final state %+v", final.State)
	}
	waitNamedGone(t, mark)
}

// TestSandboxedJobTakesItsChildren checks that a sandboxed job that ends
// on its own leaves nothing running behind it.
func TestSandboxedJobTakesItsChildren(t *testing.T) {
	m, r := newTestManager(t, Options{})
	ws := t.TempDir()
	pol := sandbox.DefaultPolicy(ws)
	mark := fmt.Sprintf("openseek-job-test-%d", time.Now().UnixNano())
	cmd := "setsid bash -c 'exec -a " + mark + " sleep 300' & nohup bash -c 'exec -a " + mark + " sleep 300' >/dev/null 2>&1 &\nfor i in $(seq 200); do [ $(ps -e -o args= | grep -c '^" + mark + "') -ge 2 ] && break; sleep 0.02; done"
	rec, err := m.Start(Spec{Command: cmd, Dir: ws, Sandbox: &pol})
	if err != nil {
		t.Fatal(err)
	}
	if final := r.waitFinal(t, rec.ID); final.State.Kind != "exited" {
		t.Errorf("final state %+v", final.State)
	}
	waitNamedGone(t, mark)
}

// namedProcs returns the pids of the host's processes started as name.
func namedProcs(t *testing.T, name string) []string {
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

func waitNamedGone(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(namedProcs(t, name)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := namedProcs(t, name); len(left) > 0 {
		t.Fatalf("processes outlived the job: %v", left)
	}
}

// TestSandboxedJobsAsOrdinaryUser runs the sandboxed job tests again as
// an ordinary user.
func TestSandboxedJobsAsOrdinaryUser(t *testing.T) {
	sandboxtest.AsOrdinaryUser(t, "^Test(SecretsWithheld|SandboxedJobStops|SandboxedJobTakesItsChildren)$")
}
