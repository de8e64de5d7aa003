package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkjson"
	"go.starlark.net/starlarkstruct"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/review"
	"github.com/openseek/openseek/internal/subrun"
	"github.com/openseek/openseek/protocol"
)

// Agent kinds: a general agent may change files; an explorer runs in
// plan mode (reads and known-safe commands only).
var kinds = map[string]string{"": "", "general": "", "explore": "plan"}

// agents runs a workflow's agent(...) calls as sessions "<run>-sr-N".
type agents struct {
	run *Run

	mu   sync.Mutex
	next int
	// wt serialises git worktree add: two at once in one repository
	// race on .git/worktrees.
	wt sync.Mutex
}

// id is the next free child id of the run's session.
func (a *agents) id() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	store := a.run.Host.Store()
	parent := a.run.Session.ID()
	for {
		a.next++
		id := parent + "-sr-" + strconv.Itoa(a.next)
		if !store.Exists(id) {
			return id
		}
	}
}

// builtin is agent(task, kind="general", model=""): an agent turn as a
// sub-run; in the workspace, or, inside parallel(), in a git worktree of
// its own. It returns a struct with .answer, .ok, .diff, .cost, .session
// and .worktree.
func (a *agents) builtin(ctx context.Context) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(thread *starlark.Thread, b *starlark.Builtin, pos starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var task, kind, model string
		if err := starlark.UnpackArgs(b.Name(), pos, kw, "task", &task, "kind?", &kind, "model?", &model); err != nil {
			return nil, err
		}
		v, _, err := a.start(ctx, thread, task, kind, model)
		return v, err
	}
}

// review is review(base="", uncommitted=False, goal=None): a read-only
// agent reviews the changes (internal/review's task) — with goal= (a
// goal() struct or a text), audits the work since the goal's baseline
// commit (or base=) against the goal — and its answer is read as
// a ReviewReport: a struct with .verdict, .summary, .findings (dicts),
// .blockers (the high-severity findings) and .session.
func (a *agents) review(ctx context.Context) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(thread *starlark.Thread, b *starlark.Builtin, pos starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var base, model string
		var uncommitted bool
		var goal starlark.Value = starlark.None
		if err := starlark.UnpackArgs(b.Name(), pos, kw, "base?", &base, "uncommitted?", &uncommitted, "model?", &model, "goal?", &goal); err != nil {
			return nil, err
		}
		var task string
		var err error
		if goal != starlark.None {
			text, baseline, gerr := goalOf(goal, base)
			if gerr != nil {
				return nil, gerr
			}
			task, err = review.GoalTask(ctx, a.run.Host.Workspace(), text, baseline)
		} else {
			task, err = review.Task(ctx, a.run.Host.Workspace(), base, uncommitted)
		}
		if err != nil {
			return nil, fmt.Errorf("review: %w", err)
		}
		rep, id := &review.Report{Findings: []review.Finding{}, Verdict: review.Approve, Summary: "Nothing to review."}, ""
		if task != "" {
			v, out, err := a.start(ctx, thread, task, "explore", model)
			if err != nil {
				return nil, err
			}
			if s, err := v.(*starlarkstruct.Struct).Attr("session"); err == nil {
				id = string(s.(starlark.String))
			}
			if rep, err = review.Parse(out.Answer); err != nil {
				return nil, fmt.Errorf("review: agent %s did not answer with a valid review report: %w", id, err)
			}
		}
		var findings, blockers []starlark.Value
		for _, f := range rep.Findings {
			data, _ := json.Marshal(f)
			d, err := starlark.Call(thread, starlarkjson.Module.Members["decode"], starlark.Tuple{starlark.String(data)}, nil)
			if err != nil {
				return nil, err
			}
			findings = append(findings, d)
			if f.Severity == review.High {
				blockers = append(blockers, d)
			}
		}
		return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
			"verdict":  starlark.String(rep.Verdict),
			"summary":  starlark.String(rep.Summary),
			"findings": starlark.NewList(findings),
			"blockers": starlark.NewList(blockers),
			"session":  starlark.String(id),
		}), nil
	}
}

func resultOK(v starlark.Value) bool {
	s, ok := v.(*starlarkstruct.Struct)
	if !ok {
		return false
	}
	ok2, err := s.Attr("ok")
	return err == nil && bool(ok2.Truth())
}

// start runs one agent to its end.
func (a *agents) start(ctx context.Context, thread *starlark.Thread, task, kind, model string) (starlark.Value, agent.Outcome, error) {
	if strings.TrimSpace(task) == "" {
		return nil, agent.Outcome{}, fmt.Errorf("agent: task is empty")
	}
	approval, ok := kinds[kind]
	if !ok {
		return nil, agent.Outcome{}, fmt.Errorf("agent: unknown kind %q (general or explore)", kind)
	}
	if kind == "" {
		kind = "general"
	}
	id := a.id()
	host, dir, wt := a.run.Host, a.run.Host.Workspace(), (*subrun.Worktree)(nil)
	if thread.Local(parallelKey) != nil {
		// Parallel writers each get a worktree, so their edits cannot
		// collide; the worktree stays for the workflow to use.
		var err error
		a.wt.Lock()
		wt, err = subrun.NewWorktree(ctx, dir, filepath.Join(a.run.Host.SessionRoot(), "worktrees"), id)
		a.wt.Unlock()
		if err != nil {
			return nil, agent.Outcome{}, fmt.Errorf("agent: %w", err)
		}
		if host, err = a.run.Host.At(ctx, wt.Dir); err != nil {
			return nil, agent.Outcome{}, fmt.Errorf("agent: %w", err)
		}
		defer host.Close()
		dir = wt.Dir
	}
	sess, err := host.Open(ctx, engine.OpenOptions{ID: id, Model: model, Approval: approval, Holder: "openseek workflow " + a.run.Session.ID()})
	if err != nil {
		return nil, agent.Outcome{}, fmt.Errorf("agent: %w", err)
	}
	a.run.Session.Announce(protocol.SubrunStarted{ID: id, Kind: kind, Label: label(task)})
	out, err := sess.Prompt(ctx, protocol.Text(task), nil)
	closeErr := sess.Close()
	status := protocol.SubrunCaptured
	switch {
	case err != nil:
		status = protocol.SubrunFailed
	case ctx.Err() != nil:
		status = protocol.SubrunCancelled
	case !out.OK():
		status = protocol.SubrunNoReport
	}
	a.run.Session.Announce(protocol.SubrunFinished{ID: id, Status: status, Steps: out.Steps,
		PromptTokens: out.Usage.PromptTokens, CompletionTokens: out.Usage.CompletionTokens})
	if err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, agent.Outcome{}, fmt.Errorf("agent %s: %w", id, err)
	}
	cost, _ := sess.Cost(out.Usage)
	fields := starlark.StringDict{
		"answer":   starlark.String(out.Answer),
		"ok":       starlark.Bool(out.OK()),
		"diff":     starlark.String(diff(ctx, dir)),
		"cost":     starlark.Float(cost),
		"session":  starlark.String(id),
		"worktree": starlark.String(""),
		"branch":   starlark.String(""),
	}
	if wt != nil {
		fields["worktree"], fields["branch"] = starlark.String(wt.Dir), starlark.String(wt.Branch)
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, fields), out, nil
}

// diff is dir's changes against HEAD, new files included, read through
// a scratch index so the repository's own index is left alone; "" when
// dir is no git repository.
func diff(ctx context.Context, dir string) string {
	f, err := os.CreateTemp("", "openseek-workflow-index-*")
	if err != nil {
		return ""
	}
	f.Close()
	defer os.Remove(f.Name())
	env := append(os.Environ(), "GIT_INDEX_FILE="+f.Name())
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		return string(out), err
	}
	if _, err := git("read-tree", "HEAD"); err != nil {
		return ""
	}
	if _, err := git("add", "-A", "--", ".", ":!.openseek"); err != nil {
		return ""
	}
	out, _ := git("diff", "--cached", "HEAD")
	return out
}

// label is task as a one-line label for the faces.
func label(task string) string {
	s := strings.Join(strings.Fields(task), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}
