package review

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/protocol"
)

// Turn is the session a gate reviews after: what it publishes reaches
// the session's clients, and Prompt sends the turn back to the model.
// *engine.Session is one.
type Turn interface {
	Publish(protocol.Event) int64
	Prompt(ctx context.Context, content protocol.Content, submissionID *string) (agent.Outcome, error)
}

// Gate is the review gate (`run --review-gate`): after a turn that ended
// well it reviews the uncommitted changes read-only, within deadline;
// when the review finds a high-severity problem the turn goes back to
// the model once with the findings, and the outcome returned counts the
// steps and usage of both. A review that cannot run is reported on the
// session as a notice and leaves the turn as it ended. o.Engine reaches
// the model (Gate sets Uncommitted); its progress is shown to the
// session's clients as the sub-run "review-gate".
func Gate(ctx context.Context, s Turn, out agent.Outcome, o Options, deadline time.Duration) (agent.Outcome, error) {
	o.Uncommitted, o.Base = true, ""
	s.Publish(protocol.SubrunStarted{ID: "review-gate", Kind: "review", Label: "review gate"})
	rctx, cancel := context.WithTimeout(ctx, deadline)
	rep, rerr := Run(rctx, o)
	cancel()
	fin := protocol.SubrunFinished{ID: "review-gate", Status: protocol.SubrunCaptured}
	if rerr != nil {
		fin.Status = protocol.SubrunFailed
		if errors.Is(rerr, context.DeadlineExceeded) {
			fin.Status = protocol.SubrunTimedOut
		}
	}
	s.Publish(fin)
	if rerr != nil {
		s.Publish(protocol.BackgroundNotice{Content: "[review gate] the review could not run: " + rerr.Error()})
		return out, nil
	}
	var high []Finding
	for _, f := range rep.Findings {
		if f.Severity == High {
			high = append(high, f)
		}
	}
	if len(high) == 0 {
		s.Publish(protocol.BackgroundNotice{Content: fmt.Sprintf("[review gate] passed: %d finding(s), none high-severity", len(rep.Findings))})
		return out, nil
	}
	again, err := s.Prompt(ctx, protocol.Text(gatePrompt(high)), nil)
	if err != nil {
		return out, err
	}
	again.Steps += out.Steps
	again.Usage = again.Usage.Add(out.Usage)
	return again, nil
}

// gatePrompt sends the high-severity findings back to the model.
func gatePrompt(high []Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[review gate] A read-only review of your changes found %d high-severity problem(s). Fix them (or explain why they are not problems), then answer again.\n", len(high))
	for _, f := range high {
		fmt.Fprintf(&b, "\n- %s:%d-%d %s\n  %s", f.File, f.LineStart, f.LineEnd, f.Title, strings.ReplaceAll(f.Body, "\n", "\n  "))
	}
	return b.String()
}
