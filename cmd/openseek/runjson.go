package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openseek/openseek/internal/engine"
)

// jsonRun holds run's flags for JSON requests (reference §3.3) and the
// review gate.
type jsonRun struct {
	inputFormat    string
	kind           string
	resultFile     string
	cancelOnEOF    bool
	reviewGate     bool
	reviewDeadline time.Duration
}

func (j *jsonRun) addFlags(f *pflag.FlagSet) {
	f.StringVar(&j.inputFormat, "input-format", "text", "text (the task from the arguments or stdin) or json (one JSON request on stdin: {\"version\":1,\"request_id\"?,\"kind\"?,\"input\"})")
	f.StringVar(&j.kind, "kind", "", "preset kind of a JSON request: echo, explore, worker or general (needs --input-format json)")
	f.StringVar(&j.resultFile, "result-file", "", "write the JSON run result here ({\"version\":1,\"request_id\",\"kind\",\"status\",\"output\"|\"reason\"})")
	f.BoolVar(&j.cancelOnEOF, "cancel-on-stdin-eof", false, "delegated run: one request line on stdin, stdin held open by the parent, its end cancels")
	f.BoolVar(&j.reviewGate, "review-gate", false, "after the turn, review its changes read-only; a high-severity finding sends the turn back to the model once")
	f.DurationVar(&j.reviewDeadline, "review-deadline", 15*time.Minute, "wall-clock deadline of the review gate's review")
}

// check refuses the JSON-request flags that make no sense together;
// it runs before anything else, JSON request or not.
func (j *jsonRun) check(cmd *cobra.Command, args []string) error {
	switch j.inputFormat {
	case "text", "json":
	default:
		return fmt.Errorf("--input-format must be text or json, not %q", j.inputFormat)
	}
	if j.reviewDeadline <= 0 {
		return fmt.Errorf("--review-deadline must be positive, not %s", j.reviewDeadline)
	}
	if j.inputFormat == "json" {
		if len(args) > 0 {
			return errors.New("a task on the command line cannot be combined with --input-format json")
		}
		return nil
	}
	switch {
	case cmd.Flags().Changed("kind"):
		return errors.New("--kind needs --input-format json: a preset reads a JSON request")
	case j.cancelOnEOF:
		return errors.New("--cancel-on-stdin-eof needs --input-format json")
	case j.resultFile != "":
		return errors.New("--result-file needs --input-format json: the result file reports a JSON request")
	}
	return nil
}

// runJSON runs one JSON request (run --input-format json): every refusal
// is checked before the workspace is created, reported on stderr and, with
// --result-file, as the result's reason. Exit status 0 when completed.
func (c *cli) runJSON(cmd *cobra.Command, j *jsonRun, noSession, cont bool, sysFile, addendum, format string) error {
	res := engine.RequestResult{}
	finish := func(err error) error {
		if err != nil {
			res.Status, res.Reason = engine.RequestFailed, err.Error()
		}
		if j.resultFile != "" {
			if werr := os.WriteFile(j.resultFile, append(res.Marshal(), '\n'), 0o644); werr != nil {
				return errors.Join(err, fmt.Errorf("write the result file: %w", werr))
			}
		}
		if err != nil {
			return err
		}
		if res.Status != engine.RequestCompleted {
			return exitError(1)
		}
		return nil
	}
	if err := c.jsonFlagChecks(cmd, j, noSession, cont); err != nil {
		return finish(err)
	}
	rd := bufio.NewReader(c.stdin)
	var data []byte
	if j.cancelOnEOF {
		line, err := rd.ReadBytes('\n')
		if strings.TrimSpace(string(line)) == "" && err != nil {
			return finish(errors.New("stdin closed before a request arrived"))
		}
		data = line
	} else {
		all, err := io.ReadAll(rd)
		if err != nil {
			return finish(fmt.Errorf("read the request from stdin: %w", err))
		}
		data = all
	}
	req, err := engine.ParseRunRequest(data)
	res.RequestID = req.RequestID
	if err != nil {
		return finish(err)
	}
	kind := req.Kind
	if j.kind != "" {
		if req.Kind != "" && req.Kind != j.kind {
			return finish(fmt.Errorf("--kind %s does not match the request's kind %s", j.kind, req.Kind))
		}
		kind = j.kind
	}
	preset, err := engine.ParsePreset(kind, req.Input)
	if err != nil {
		return finish(err)
	}
	res.Kind = kind
	if kind == engine.PresetGeneral {
		kind = ""
	}
	if kind == engine.PresetExplore {
		c.g.approval = preset.Approval()
	}

	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	if j.cancelOnEOF {
		go func() { _, _ = io.Copy(io.Discard, rd); cancel() }()
	}
	var lease *engine.Lease
	defer func() { lease.Release() }()
	r := kindRun{kind: kind, preset: preset, format: format, holder: "openseek run", sessionID: c.g.session,
		noSession: noSession, sysFile: sysFile, addendum: addendum, reviewGate: j.reviewGate, reviewDeadline: j.reviewDeadline}
	if j.cancelOnEOF && kind == "" {
		r.started = func(host *engine.Host) error {
			var err error
			lease, err = engine.AcquireLease(host.Workspace())
			return err
		}
	}
	out, err := c.runKind(ctx, cmd, r)
	if err != nil {
		return finish(err)
	}
	switch {
	case out.completed():
		res.Status, res.Output = engine.RequestCompleted, out.output
	case engine.EndingOf(out.out) == engine.EndInterrupted || ctx.Err() != nil:
		usage, steps := out.out.Usage, out.out.Steps
		res.Status, res.Reason, res.Usage, res.Steps = engine.RequestInterrupted, "cancelled", &usage, &steps
	default:
		res.Status, res.Reason = engine.RequestFailed, cmpOr(out.out.Answer, string(out.out.Kind))
	}
	return finish(nil)
}

// jsonFlagChecks are the refusals of the run flags that depend on a JSON
// request being run, in the reference's order.
func (c *cli) jsonFlagChecks(cmd *cobra.Command, j *jsonRun, noSession, cont bool) error {
	if j.cancelOnEOF && j.reviewGate {
		return errors.New("--review-gate is not available with --cancel-on-stdin-eof: a delegated run does not delegate further")
	}
	if c.getenv("WORKFLOW_HOST") != "" && cmd.Flags().Changed("session") && c.g.session == "" {
		return errors.New("a run launched from a hosted workflow needs its reserved --session; delegate through @hosted.run so the child gets a transcript")
	}
	if j.cancelOnEOF {
		if cmd.Flags().Changed("approval") && c.g.approval != "never" {
			return errors.New("a delegated run (--cancel-on-stdin-eof) refuses every escalation: --approval must be never")
		}
		c.g.approval = "never" // an inherited OPENSEEK_APPROVAL does not apply
	}
	if c.asksApproval() {
		return fmt.Errorf("--approval %s needs a controller to ask: this command reads no commands, so use never (refuse escalation) or always (grant it unasked)", c.g.approval)
	}
	if noSession && c.g.session != "" {
		return errors.New("--no-session contradicts --session; pick one behavior")
	}
	if cont {
		return errors.New("--continue cannot be combined with --input-format json: give the session with --session")
	}
	if j.kind != "" && j.kind != engine.PresetGeneral {
		if err := engine.CheckPresetKind(j.kind); err != nil {
			return err
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
