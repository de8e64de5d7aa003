package sandbox_test

import (
	"testing"
	"time"

	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/sandbox"
)

// BenchmarkSpawn measures starting and finishing `true` through
// jobs.Spawn, unsandboxed and in the sandbox with the network off and on.
func BenchmarkSpawn(b *testing.B) {
	ws := b.TempDir()
	off := sandbox.DefaultPolicy(ws)
	on := off
	on.Network = true
	for _, bc := range []struct {
		name string
		pol  *sandbox.Policy
	}{{"unsandboxed", nil}, {"network-off", &off}, {"network-on", &on}} {
		b.Run(bc.name, func(b *testing.B) {
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
