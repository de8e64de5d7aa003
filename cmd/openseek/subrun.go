package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/review"
	"github.com/openseek/openseek/protocol"
)

func (c *cli) subrunCmd() *cobra.Command {
	var noSession bool
	cmd := &cobra.Command{
		Use:   "subrun <kind>",
		Short: "INTERNAL: run one subagent kind as a child of this engine (input JSON on stdin; stdin EOF cancels)",
		Long: `Run one sub-run kind as a child process of another engine (reference §6).
Kinds: echo (modelless: reports its input), explore ({"query"}: read-only),
worker ({"task","worker_root"}: works in its own git worktree under the
absolute worker_root), general ({"task"}).

stdin carries one JSON input line and is then held open by the parent; its
end cancels the run. stdout carries the ordinary JSONL events, then a final
{"subrun_report": <json>} line. A refusal is a command_error event, exit 1.`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return errors.New("the following required argument was not provided: 'kind'")
			case len(args) > 1:
				return fmt.Errorf("unexpected value '%s' found; no more were expected", args[1])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			kind := args[0]
			w := protocol.NewWriter(c.stdout)
			refuse := func(msg string) error {
				_ = w.Emit(protocol.CommandError{Error: msg})
				return exitError(1)
			}
			if noSession && c.g.session != "" {
				return refuse("--no-session contradicts --session; pick one behavior")
			}
			if !isSubrunKind(kind) {
				return refuse("unknown subrun kind: " + kind)
			}
			rd := bufio.NewReader(c.stdin)
			line, err := rd.ReadBytes('\n')
			closed := err != nil
			if strings.TrimSpace(string(line)) == "" {
				return refuse(fmt.Sprintf("subrun %s: stdin closed before an input arrived", kind))
			}
			input := json.RawMessage(line)
			var probe any
			if err := json.Unmarshal(input, &probe); err != nil {
				return refuse(fmt.Sprintf("subrun %s: the input is not JSON: %s", kind, engine.JSONInputError(input, err)))
			}
			preset, err := engine.ParsePreset(kind, input)
			if err != nil {
				return refuse(fmt.Sprintf("subrun %s: %v", kind, err))
			}
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			if kind != engine.PresetEcho {
				if closed {
					cancel()
				} else {
					go func() { _, _ = io.Copy(io.Discard, rd); cancel() }()
				}
				// A child never asks: it refuses escalation, or is read-only.
				c.g.approval = preset.Approval()
			}
			res, err := c.runKind(ctx, cmd, kindRun{kind: kind, preset: preset, format: "jsonl", holder: "openseek subrun " + kind,
				sessionID: c.g.session, noSession: noSession})
			if err != nil {
				return refuse(fmt.Sprintf("subrun %s: %v", kind, err))
			}
			if !res.completed() {
				return exitError(1)
			}
			if _, err := c.stdout.Write(append(engine.SubrunReport(res.output), '\n')); err != nil {
				return exitError(1)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&noSession, "no-session", false, "run ephemerally (no durable session)")
	return cmd
}

func isSubrunKind(k string) bool { return slices.Contains(engine.PresetKinds(), k) }

// kindRun is one preset run: a JSON request of run --input-format json or
// the input of a subrun child.
type kindRun struct {
	kind              string // "" = general
	preset            engine.Preset
	format            string
	holder            string
	sessionID         string
	noSession         bool
	sysFile, addendum string
	reviewGate        bool
	reviewDeadline    time.Duration
	// started, when set, is called once the run's session is open (the
	// delegated run takes its lease there, the workspace being known).
	started func(host *engine.Host) error
}

// kindResult is how a preset run ended.
type kindResult struct {
	output json.RawMessage // the run's output (completed runs)
	out    engine.Outcome  // the model turn (model-driven kinds)
	model  bool            // a model turn ran
}

func (r kindResult) completed() bool { return !r.model || r.out.OK() }

// runKind runs one preset kind on a workspace host, the events going to
// the sink of r.format. echo is modelless; explore runs read-only; worker
// runs in its own git worktree; general runs the task as it is.
func (c *cli) runKind(ctx context.Context, cmd *cobra.Command, r kindRun) (kindResult, error) {
	if r.kind == engine.PresetEcho {
		emit, err := c.sink(r.format, nil)
		if err != nil {
			return kindResult{}, err
		}
		events, output := r.preset.Echo()
		for _, e := range events {
			emit(e)
		}
		return kindResult{output: output}, nil
	}
	var wt *engine.Worktree
	if r.kind == engine.PresetWorker {
		// The key is checked before the worktree exists.
		host, err := c.newHost(cmd, r.sysFile, r.addendum)
		if err != nil {
			return kindResult{}, err
		}
		_, err = host.ResolveModel(ctx)
		host.Close()
		if err != nil {
			return kindResult{}, err
		}
		repo, _ := filepath.Abs(c.g.dir)
		if wt, err = r.preset.NewWorktree(ctx, repo, r.sessionID); err != nil {
			return kindResult{}, err
		}
		c.g.dir = wt.Dir
	}
	host, err := c.newHost(cmd, r.sysFile, r.addendum)
	if err != nil {
		return kindResult{}, err
	}
	defer host.Close()
	if _, err := host.ResolveModel(ctx); err != nil {
		return kindResult{}, err
	}
	if r.started != nil {
		if err := r.started(host); err != nil {
			return kindResult{}, err
		}
	}
	sess, err := c.openSession(ctx, host, engine.OpenOptions{ID: r.sessionID, NoSession: r.noSession, Holder: r.holder}, r.format)
	if err != nil {
		return kindResult{}, err
	}
	out, err := sess.Prompt(ctx, protocol.Text(r.preset.Prompt()), nil)
	if err == nil && r.reviewGate && out.OK() && ctx.Err() == nil {
		out, err = c.reviewGate(ctx, cmd, sess, out, r.reviewDeadline)
	}
	sess.close()
	if err != nil {
		return kindResult{}, err
	}
	res := kindResult{out: out, model: true}
	if !out.OK() {
		return res, nil
	}
	if wt != nil {
		res.output, _ = json.Marshal(struct {
			*engine.Worktree
			Changed []string `json:"changed"`
			Report  string   `json:"report"`
		}{wt, nonNil(wt.Changed(context.WithoutCancel(ctx))), out.Answer})
	} else {
		res.output, _ = json.Marshal(out.Answer)
	}
	return res, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// reviewGate runs the review gate (review.Gate) after a turn, the
// review reaching the model with the global flags.
func (c *cli) reviewGate(ctx context.Context, cmd *cobra.Command, sess *localSession, out engine.Outcome, deadline time.Duration) (engine.Outcome, error) {
	opts, err := c.engineOptions(cmd, "", "")
	if err != nil {
		return out, err
	}
	opts.Holder = "openseek review gate"
	return review.Gate(ctx, sess, out, review.Options{Engine: opts, NoSession: true}, deadline)
}
