package sandbox_test

import (
	"testing"
	"time"

	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/sandbox"
)

// BenchmarkSpawn measures starting and finishing `true` through
// jobs.Spawn, unsandboxed and in the sandbox with the network off and on,
// as a session's command (a helper of its own), and on the re-exec path.
func BenchmarkSpawn(b *testing.B) {
	ws := b.TempDir()
	off := sandbox.DefaultPolicy(ws)
	on := off
	on.Network = true
	session := off
	session.Session = "bench"
	defer session.Release()
	for _, bc := range []struct {
		name   string
		pol    *sandbox.Policy
		reexec bool
	}{{"unsandboxed", nil, false}, {"network-off", &off, false}, {"network-on", &on, false},
		{"network-off-session", &session, false}, {"network-off-reexec", &off, true}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.reexec {
				b.Setenv(sandbox.ReexecEnv, "1")
			}
			spool := b.TempDir()
			for b.Loop() {
				p, err := jobs.Spawn(jobs.Spec{Command: "true", Dir: ws, Sandbox: bc.pol}, spool)
				if err != nil {
					b.Fatal(err)
				}
				<-p.Done()
				if p.ExitCode() != 0 {
					b.Fatalf("exit %d", p.ExitCode())
				}
				p.Release(time.Second)
			}
		})
	}
}

// BenchmarkDetect measures the start-up probe.
func BenchmarkDetect(b *testing.B) {
	for b.Loop() {
		sandbox.Detect()
	}
}
