package verify

import (
	"context"
	"fmt"
	"os"
	"time"

	"mvdan.cc/sh/v3/syntax"

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

// Run runs c's command with bash in dir, inside sb when it is not nil,
// killing it after timeout; Output keeps the last tail characters. The
// keys secrets holds (may be nil) reach neither the command's
// environment nor Output.
func Run(ctx context.Context, dir string, c Check, timeout time.Duration, sb *sandbox.Policy, secrets *sandbox.Secrets, tail int) Result {
	r := Result{Command: c.Command, ExitCode: -1}
	start := time.Now()
	script := c.Command
	if c.Scratch {
		scratch, err := os.MkdirTemp("", "openseek-verify-")
		if err != nil {
			r.Output = fmt.Sprintf("could not make the check's scratch directory: %v", err)
			return r
		}
		// The script removes it too: a sandbox without network has a
		// private /tmp, where the command makes its own copy.
		defer os.RemoveAll(scratch)
		q, err := syntax.Quote(scratch, syntax.LangBash)
		if err != nil {
			r.Output = fmt.Sprintf("the scratch directory %q cannot be named in a shell command: %v", scratch, err)
			return r
		}
		script = scratchScript(q, c.Command)
	}
	p, err := jobs.Spawn(jobs.Spec{Command: script, Description: "verify", Dir: dir, Sandbox: sb, Secrets: secrets}, "")
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
	r.Output = secrets.Redact(out)
	if r.TimedOut {
		r.Output += fmt.Sprintf("\n[verify] timed out after %s; the check was killed", timeout)
	}
	return r
}

// Script is c as one self-contained shell script, for a caller that runs
// it without Run (best-of-N): with Scratch it makes its own scratch
// directory and removes it when it exits.
func (c Check) Script() string {
	if !c.Scratch {
		return c.Command
	}
	return scratchScript(`"$(mktemp -d)"`, c.Command)
}

// scratchScript runs command with $OPENSEEK_VERIFY_SCRATCH set to dir (a
// shell word), which it makes first and removes when it exits (a
// timeout's SIGTERM included).
func scratchScript(dir, command string) string {
	return ScratchVar + "=" + dir + "\n" +
		`mkdir -p "$` + ScratchVar + `" || exit 125` + "\n" +
		`trap 'rm -rf "$` + ScratchVar + `"' EXIT` + "\n" +
		"export " + ScratchVar + "\n" +
		command
}
