package verify

import (
	"context"
	"fmt"
	"os"
	"strings"
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
// killing it after timeout; Output keeps the last tail characters.
func Run(ctx context.Context, dir string, c Check, timeout time.Duration, sb *sandbox.Policy, tail int) Result {
	r := Result{Command: c.Command, ExitCode: -1}
	start := time.Now()
	script := c.Command
	if len(c.Scratch) > 0 {
		scratch, err := os.MkdirTemp("", "openseek-verify-")
		if err != nil {
			r.Output = fmt.Sprintf("could not make the check's scratch directory: %v", err)
			return r
		}
		// The script removes it too: a sandbox without network has a
		// private /tmp, where the command makes its own copy.
		defer os.RemoveAll(scratch)
		if script, err = scratchScript(scratch, c); err != nil {
			r.Output = err.Error()
			return r
		}
	}
	p, err := jobs.Spawn(jobs.Spec{Command: script, Description: "verify", Dir: dir, Sandbox: sb}, "")
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

// scratchScript runs c's command with each of c.Scratch pointing into
// scratch, which it makes first and removes when it exits (a timeout's
// SIGTERM included).
func scratchScript(scratch string, c Check) (string, error) {
	q, err := syntax.Quote(scratch, syntax.LangBash)
	if err != nil {
		return "", fmt.Errorf("the scratch directory %q cannot be named in a shell command: %w", scratch, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "OPENSEEK_VERIFY_SCRATCH=%s\n", q)
	b.WriteString("mkdir -p \"$OPENSEEK_VERIFY_SCRATCH\" || exit 125\n")
	b.WriteString("trap 'rm -rf \"$OPENSEEK_VERIFY_SCRATCH\"' EXIT\n")
	for _, name := range c.Scratch {
		fmt.Fprintf(&b, "export %s=\"$OPENSEEK_VERIFY_SCRATCH/%s\"\n", name, strings.ToLower(name))
	}
	b.WriteString(c.Command)
	return b.String(), nil
}
