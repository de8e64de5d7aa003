package shell

import (
	"context"
	"errors"

	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// jobRuntime is what the shell tools need of the session's job runtime
// (jobs.Manager) beyond tool.Jobs: starting, adopting and reading jobs.
type jobRuntime interface {
	tool.Jobs
	Spawn(spec jobs.Spec) (*jobs.Process, error)
	Start(spec jobs.Spec) (protocol.JobRecord, error)
	Adopt(p *jobs.Process) (protocol.JobRecord, error)
	Output(id string, offset *int, window int) (jobs.OutputView, error)
}

// runtimeOf is env's job runtime, nil when the session has none.
func runtimeOf(env *tool.Env) jobRuntime {
	rt, _ := env.Jobs.(jobRuntime)
	return rt
}

// commandGuard is the permission check judging a command (policy.Guard).
type commandGuard interface {
	ShellIn(ctx context.Context, tool, dir, script string, esc policy.Escalation) (outside bool, err error)
}

// checkCommand asks env's guard whether script, run from dir, may run,
// and whether outside the sandbox. Without a guard everything runs; a guard that
// cannot judge commands refuses them.
func checkCommand(ctx context.Context, env *tool.Env, dir, script string, esc policy.Escalation) (bool, error) {
	if env.Guard == nil {
		return false, nil
	}
	g, ok := env.Guard.(commandGuard)
	if !ok {
		return false, errors.New("refused: the session's permission check cannot judge commands")
	}
	return g.ShellIn(ctx, "shell", dir, script, esc)
}

// sandboxOf is the sandbox env's commands run in (nil: none); a sandbox
// that cannot run commands is an error, never a reason to run unconfined.
func sandboxOf(env *tool.Env) (*sandbox.Policy, error) {
	if env.Sandbox == nil {
		return nil, nil
	}
	sp, ok := env.Sandbox.(*sandbox.Policy)
	if !ok {
		return nil, errors.New("the session's sandbox cannot run commands")
	}
	return sp, nil
}
