package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/sandbox"
)

// killGrace is how long a timed-out or cancelled check gets between
// SIGTERM and SIGKILL of its process group.
const killGrace = 2 * time.Second

// Result is one run of the check.
type Result struct {
	Command  string
	ExitCode int // -1 when it did not exit on its own
	OK       bool
	TimedOut bool
	Output   string // the last tail characters of stdout+stderr
	Duration time.Duration
}

// Run runs command with bash in dir, inside sb when it is not nil,
// killing it after timeout; Output keeps the last tail characters.
func Run(ctx context.Context, dir, command string, timeout time.Duration, sb *sandbox.Policy, tail int) Result {
	r := Result{Command: command, ExitCode: -1}
	start := time.Now()
	p, err := jobs.Spawn(jobs.Spec{Command: command, Description: "verify", Dir: dir, Sandbox: sb}, "")
	if err != nil {
		r.Output = fmt.Sprintf("could not start the check: %v", err)
		return r
	}
	defer p.Release(killGrace)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.Done():
		r.ExitCode = p.ExitCode()
		r.OK = r.ExitCode == 0
	case <-timer.C:
		p.Kill(killGrace)
		r.TimedOut = true
	case <-ctx.Done():
		p.Kill(killGrace)
	}
	r.Duration = time.Since(start)
	total := p.Output().Chars
	from := max(0, total-int64(tail))
	out, err := p.Read(from, total-from)
	if err != nil {
		out = fmt.Sprintf("(the output could not be read: %v)", err)
	} else if from > 0 {
		out = fmt.Sprintf("[… %d earlier characters cut]\n", from) + out
	}
	r.Output = out
	if r.TimedOut {
		r.Output += fmt.Sprintf("\n[verify] timed out after %s; the check was killed", timeout)
	}
	return r
}
