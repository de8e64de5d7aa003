package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"go.starlark.net/starlark"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/script"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/internal/verify"
	"github.com/openseek/openseek/protocol"
)

// DefaultLimits bound a workflow run: the script tool's step limit (a
// runaway loop ends with an error naming its line); no wall time of its
// own, as agents take as long as they take (the run's context ends it);
// and more output than a script keeps, as the output is the run's report.
func DefaultLimits() script.Limits {
	return script.Limits{Steps: script.DefaultLimits.Steps, Output: 256 << 10}
}

// Run is one workflow run on a host.
type Run struct {
	Host    *engine.Host
	Session *engine.Session // the run's own session
	Limits  script.Limits   // zero: DefaultLimits

	agents agents
}

// CallName is the tool-call name a workflow run records for itself in
// its session: the program stands in for the model's one call.
const CallName = "workflow"

// Result is how a run ended.
type Result struct {
	agent.Outcome
	Output string // what the workflow printed
	Err    error  // why it failed (naming its line); nil when it finished
}

// Exec runs w with args in the run's session: its one turn finishes with
// what the workflow printed, or fails with that and the error (naming
// the workflow's line). err is a failure to run or record the turn.
func (r *Run) Exec(ctx context.Context, w Workflow, args []string) (Result, error) {
	r.agents.run = r
	if r.Limits == (script.Limits{}) {
		r.Limits = DefaultLimits()
	}
	callArgs, _ := json.Marshal(map[string]any{"name": w.Name, "path": w.Path, "args": nonNil(args)})
	input := "workflow " + w.Name
	if len(args) > 0 {
		input += " " + strings.Join(args, " ")
	}
	var res Result
	// The call's id is unique in the session, which may hold earlier runs.
	id := "wf" + strconv.Itoa(r.Session.Snapshot().LastSequence()+1)
	call := chat.ToolCall{ID: id, Name: CallName, Arguments: string(callArgs)}
	out, err := r.Session.Program(ctx, protocol.Text(input), call, func(ctx context.Context, c tool.Caller) tool.Result {
		res.Output, res.Err = script.RunWith(ctx, w.Code, c, r.Limits, script.Options{Filename: w.Name, Extra: r.builtins(ctx, args)})
		if res.Err != nil {
			res.Err = fmt.Errorf("workflow %s: %w", w.Name, res.Err)
			return tool.Result{Content: protocol.Text(res.Output + "error: " + res.Err.Error()), IsError: true}
		}
		return tool.Result{Content: protocol.Text(res.Output)}
	})
	r.Session.Publish(protocol.WorkflowFinished{ID: r.Session.ID()})
	res.Outcome = out
	if err == nil && res.Err == nil && !out.OK() {
		res.Err = fmt.Errorf("workflow %s: %s", w.Name, out.Answer)
	}
	return res, err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// builtins are a workflow's names beyond the tools and json.
func (r *Run) builtins(ctx context.Context, args []string) starlark.StringDict {
	list := make([]starlark.Value, len(args))
	for i, a := range args {
		list[i] = starlark.String(a)
	}
	argv := starlark.NewList(list)
	argv.Freeze()
	return starlark.StringDict{
		"args":     argv,
		"agent":    starlark.NewBuiltin("agent", r.agents.builtin(ctx)),
		"parallel": starlark.NewBuiltin("parallel", r.parallel(ctx)),
		"best_of":  starlark.NewBuiltin("best_of", r.bestOf(ctx)),
		"project":  starlark.NewBuiltin("project", r.project),
		"review":   starlark.NewBuiltin("review", r.agents.review(ctx)),
		"goal":     starlark.NewBuiltin("goal", r.goal),
	}
}

// parallelKey marks a thread that parallel started: an agent there works
// in a worktree of its own, so that parallel writers do not collide.
const parallelKey = "openseek.parallel"

// parallel runs each function of a list at once, each on a thread of its
// own with the caller's limits, and returns their results in order. The
// first error (by position) is raised, naming its line, once all ended.
func (r *Run) parallel(ctx context.Context) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(thread *starlark.Thread, b *starlark.Builtin, pos starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var fns *starlark.List
		if err := starlark.UnpackArgs(b.Name(), pos, kw, "fns", &fns); err != nil {
			return nil, err
		}
		calls := make([]starlark.Callable, fns.Len())
		for i := range calls {
			c, ok := fns.Index(i).(starlark.Callable)
			if !ok {
				return nil, fmt.Errorf("parallel: item %d is a %s, not a function (use lambda: ...)", i, fns.Index(i).Type())
			}
			calls[i] = c
		}
		results, err := together(ctx, thread, r.Limits.Steps, len(calls), func(th *starlark.Thread, i int) (starlark.Value, error) {
			return starlark.Call(th, calls[i], nil, nil)
		})
		if err != nil {
			return nil, err
		}
		return starlark.NewList(results), nil
	}
}

// together runs fn n times at once, each on a new thread marked as
// parallel; print is serialised to the caller's. The callers' values are
// shared: functions run in parallel read them but must not change them.
func together(ctx context.Context, parent *starlark.Thread, steps uint64, n int, fn func(*starlark.Thread, int) (starlark.Value, error)) ([]starlark.Value, error) {
	var mu sync.Mutex
	results := make([]starlark.Value, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			th := &starlark.Thread{
				Name: fmt.Sprintf("%s/parallel-%d", parent.Name, i+1),
				Print: func(_ *starlark.Thread, msg string) {
					mu.Lock()
					defer mu.Unlock()
					parent.Print(parent, msg)
				},
			}
			th.SetLocal(parallelKey, true)
			script.Bound(th, steps) // the run's step limit, per thread
			stop := context.AfterFunc(ctx, func() { th.Cancel("it was cancelled") })
			defer stop()
			results[i], errs[i] = fn(th, i)
			if results[i] == nil {
				results[i] = starlark.None
			}
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

// bestOf is best_of(n, task, verify=None, kind="", model=""): n agents
// try task at once, each in its own worktree; the first (by number) whose
// result verify accepts (default: it finished) is returned, else None.
func (r *Run) bestOf(ctx context.Context) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(thread *starlark.Thread, b *starlark.Builtin, pos starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var n int
		var task, kind, model string
		var verify starlark.Callable
		if err := starlark.UnpackArgs(b.Name(), pos, kw, "n", &n, "task", &task, "verify?", &verify, "kind?", &kind, "model?", &model); err != nil {
			return nil, err
		}
		if n < 1 || n > 8 {
			return nil, fmt.Errorf("best_of: n must be 1 to 8, not %d", n)
		}
		results, err := together(ctx, thread, r.Limits.Steps, n, func(th *starlark.Thread, i int) (starlark.Value, error) {
			res, _, err := r.agents.start(ctx, th, task, kind, model)
			if err != nil {
				return nil, err
			}
			if verify == nil {
				return res, nil
			}
			ok, err := starlark.Call(th, verify, starlark.Tuple{res}, nil)
			if err != nil {
				return nil, err
			}
			if !ok.Truth() {
				return starlark.None, nil
			}
			return res, nil
		})
		if err != nil {
			return nil, err
		}
		for _, res := range results {
			if res == starlark.None {
				continue
			}
			if verify != nil || resultOK(res) {
				return res, nil
			}
		}
		return starlark.None, nil
	}
}

// project is project(): the workspace's detected build, test and format
// commands (verify.DetectProject), "" where none is known.
func (r *Run) project(_ *starlark.Thread, b *starlark.Builtin, pos starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), pos, kw); err != nil {
		return nil, err
	}
	p := verify.DetectProject(r.Host.Workspace())
	d := starlark.NewDict(3)
	_ = d.SetKey(starlark.String("build"), starlark.String(p.Build))
	_ = d.SetKey(starlark.String("test"), starlark.String(p.Test))
	_ = d.SetKey(starlark.String("format"), starlark.String(p.Format))
	return d, nil
}
