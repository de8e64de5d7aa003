package shell

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/tool"
)

// Timeouts of shell, in milliseconds.
const (
	DefaultTimeoutMs       = 120000 // with a job table: then the command moves to the background
	DefaultTimeoutMsNoJobs = 600000 // without one: then the command is killed
	MaxTimeoutMs           = 600000
)

// killGrace is the wait between SIGTERM and SIGKILL when a foreground
// command is cancelled or times out.
const killGrace = 500 * time.Millisecond

// Tools returns shell, job_output and job_stop.
func Tools() []tool.Tool { return []tool.Tool{Shell(), JobOutput(), JobStop()} }

type shellArgs struct {
	Cmd            string `json:"cmd" jsonschema:"shell command line"`
	Cwd            string `json:"cwd,omitempty" jsonschema:"working directory inside the workspace (default: workspace root)"`
	TimeoutMs      int    `json:"timeout_ms,omitempty" jsonschema:"default 120000, max 600000"`
	MaxOutputChars int    `json:"max_output_chars,omitempty" jsonschema:"default 12000, max 50000"`
	Background     bool   `json:"background,omitempty" jsonschema:"start as a background job at once"`
	Description    string `json:"description,omitempty" jsonschema:"a few words on what it does"`
	Escalate       bool   `json:"escalate,omitempty" jsonschema:"ask the user to run it outside the sandbox (network, writes outside the workspace); say why in justification"`
	Justification  string `json:"justification,omitempty" jsonschema:"with escalate: a short question for the user, e.g. Do you want to download the dependencies?"`
}

const shellDescription = "Run a command with bash -c, in the workspace root unless cwd is given. " +
	"stdin is empty; stdout and stderr come merged, then `<system>exit=N</system>` (non-zero exit is an error). " +
	"Long output keeps its head and tail and the footer says what was cut. " +
	"A command still running after timeout_ms moves to a background job and keeps running. " +
	"Use background:true for servers, watchers and long builds or test runs (never `&`): " +
	"read a job with job_output, end it with job_stop; a notice arrives when it exits. " +
	"Commands run in a sandbox without network that writes only in the workspace and temp directories; " +
	"when one needs more, or failed because of the sandbox, rerun it with escalate:true and a justification."

// Shell is the shell tool.
func Shell() tool.Tool { return tool.Func("shell", shellDescription, runShell) }

// shellData is the machine-readable detail of a shell result.
type shellData struct {
	ExitCode   *int   `json:"exit_code,omitempty"`
	JobID      string `json:"job_id,omitempty"`
	Cwd        string `json:"cwd"`
	TotalChars int64  `json:"total_chars"`
	ShownChars int64  `json:"shown_chars"`
	DurationMs int64  `json:"duration_ms"`
}

func runShell(ctx context.Context, env *tool.Env, a shellArgs) tool.Result {
	brief := jobs.ShortCommand(a.Cmd, 60)
	fail := func(format string, v ...any) tool.Result {
		r := tool.Errorf(format, v...)
		r.Brief = brief
		return r
	}
	if strings.TrimSpace(a.Cmd) == "" {
		return fail("error: shell requires arguments.cmd")
	}
	timeout := a.TimeoutMs
	switch {
	case timeout < 0:
		return fail("error: shell timeout_ms must be positive")
	case timeout > MaxTimeoutMs:
		return fail("error: shell timeout_ms %d is over the maximum %d", timeout, MaxTimeoutMs)
	case timeout == 0 && runtimeOf(env) != nil:
		timeout = DefaultTimeoutMs
	case timeout == 0:
		timeout = DefaultTimeoutMsNoJobs
	}
	budget := int64(DefaultMaxOutputChars)
	if a.MaxOutputChars > 0 {
		budget = int64(min(a.MaxOutputChars, MaxOutputChars))
	}
	dir, err := workDir(env, a.Cwd)
	if err != nil {
		return fail("error: shell cwd: %v", err)
	}
	if err := ctx.Err(); err != nil {
		return fail("error: shell command cancelled: %v", err)
	}
	// The permission check: a refusal (or a rejected approval) is an error
	// result that tells the model why and what the user can do.
	outside, err := checkCommand(ctx, env, dir, a.Cmd, policy.Escalation{Requested: a.Escalate, Why: a.Justification})
	if err != nil {
		return fail("error: shell command %v", err)
	}
	sb, err := sandboxOf(env)
	if err != nil {
		return fail("error running shell: %v", err)
	}
	spec := jobs.Spec{Command: a.Cmd, Description: a.Description, Dir: dir, Sandbox: sb}
	if env.Secrets != nil {
		spec.Secrets = env.Secrets
	}
	if outside {
		spec.Sandbox = nil // an approved escalation: the user let it out
	}
	d := shellData{Cwd: env.Rel(dir)}

	rt := runtimeOf(env)
	if a.Background {
		if rt == nil {
			return fail("error: background jobs are not available in this session; run the command in the foreground")
		}
		rec, err := rt.Start(spec)
		if err != nil {
			return fail("error running shell: %v", err)
		}
		d.JobID = rec.ID
		return result(fmt.Sprintf("started job %s in the background; use job_output / job_stop (a notice arrives when it exits)\n<system>job=%s running</system>", rec.ID, rec.ID), false, brief, d)
	}

	var p *jobs.Process
	if rt != nil {
		p, err = rt.Spawn(spec)
	} else {
		p, err = jobs.Spawn(spec, "")
	}
	if err != nil {
		return fail("error running shell: %v", err)
	}
	timer := time.NewTimer(time.Duration(timeout) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-p.Done():
	case <-ctx.Done():
		p.Release(killGrace)
		return fail("error: shell command cancelled: %v", ctx.Err())
	case <-timer.C:
		select {
		case <-p.Done(): // finished just in time
		default:
			return timedOut(env, p, timeout, budget, brief, d)
		}
	}
	defer p.Release(killGrace)
	d.DurationMs = time.Since(p.Started()).Milliseconds()
	ex, err := headTail(p.Read, p.Output().Chars, budget)
	if err != nil {
		return fail("error running shell: %v", err)
	}
	code := p.ExitCode()
	d.ExitCode, d.TotalChars, d.ShownChars = &code, ex.total, ex.shown
	out := p.Output()
	var f footer
	f.int("exit", int64(code))
	if ex.truncated {
		f.flag("truncated", true)
		f.int("shown_chars", ex.shown)
		f.int("total_chars", ex.total)
	}
	f.flag("output_dropped_at_cap", out.Dropped)
	f.flag("killed_at_output_cap", p.KilledAtOutputCap())
	f.flag("binary_output", out.InvalidUTF8)
	f.flag("output_not_saved", out.Unsaved)
	isErr := code != 0 || p.KilledAtOutputCap() || out.InvalidUTF8
	text := ex.text
	if spec.Sandbox != nil && spec.Sandbox.Secrets != nil {
		if n := secretNotes(ctx, env, dir, a.Cmd); n != "" {
			text = strings.TrimPrefix(strings.TrimSuffix(text, "\n")+"\n"+n, "\n")
		}
	}
	return result(withFooter(text, f), isErr, brief, d)
}

// timedOut hands a command that outlived its timeout to the job table,
// or kills it when there is none.
func timedOut(env *tool.Env, p *jobs.Process, timeout int, budget int64, brief string, d shellData) tool.Result {
	ex, rerr := headTail(p.Read, p.Output().Chars, budget)
	d.TotalChars, d.ShownChars = ex.total, ex.shown
	d.DurationMs = time.Since(p.Started()).Milliseconds()
	if rt := runtimeOf(env); rt != nil {
		if rec, err := rt.Adopt(p); err == nil {
			d.JobID = rec.ID
			msg := fmt.Sprintf("moved to the background as job %s after %s; use job_output / job_stop (a notice arrives when it exits)",
				rec.ID, jobs.FormatDuration(time.Duration(timeout)*time.Millisecond))
			if rerr == nil && ex.text != "" {
				msg = strings.TrimSuffix(ex.text, "\n") + "\n" + msg
			}
			return result(msg+"\n<system>job="+rec.ID+" running</system>", false, brief, d)
		}
	}
	p.Release(killGrace)
	msg := fmt.Sprintf("error: shell command timed out after %dms", timeout)
	if rerr == nil && ex.text != "" {
		msg += "; its output until then:\n" + ex.text
	}
	return result(msg, true, brief, d)
}

func result(text string, isErr bool, brief string, d shellData) tool.Result {
	r := tool.TextResult(text)
	r.IsError, r.Brief = isErr, brief
	r.Data, _ = json.Marshal(d) // plain fields always marshal
	return r
}

// workDir is the resolved working directory: cwd, or the workspace root.
func workDir(env *tool.Env, cwd string) (string, error) {
	if cwd == "" {
		cwd = cmp.Or(env.Cwd, ".")
	}
	dir, err := env.Resolve(cwd)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", cwd)
	}
	return dir, nil
}
