package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// stateOf reads the state of a record's JSON ("" when unreadable).
func stateOf(data []byte) State {
	var t struct {
		State State `json:"state"`
	}
	_ = json.Unmarshal(data, &t)
	return t.State
}

// settle finishes a best-of-N parent once all its runs are over: it picks
// the best run and records the choice. Whoever's update wins does it; the
// others find the parent finished.
// With the task's --judge, judge (nil = none here) picks among the runs.
func (c *Client) settle(ctx context.Context, parentID string, judge JudgeFunc) {
	ctx = context.WithoutCancel(ctx)
	p, err := c.Get(ctx, parentID)
	if err != nil || p.State.Terminal() {
		return
	}
	runs := make([]*Task, 0, len(p.Children))
	for _, id := range p.Children {
		r, err := c.Get(ctx, id)
		if err != nil {
			return
		}
		if !r.State.Terminal() {
			return // not all over yet: the last run to end settles
		}
		runs = append(runs, r)
	}
	if !p.Judge {
		judge = nil
	}
	ch := Choose(ctx, p.Prompt, runs, p.Verify != "", judge)
	best := ch.Best
	p.CostUSD, p.FinishedAt = ch.Cost, time.Now().UTC()
	for _, r := range runs {
		p.CostUSD += r.CostUSD
		p.CostUnknown = p.CostUnknown || r.CostUnknown
	}
	p.Verdict, p.Warning = ch.Verdict, ch.Warning
	if best == nil {
		p.State, p.Error = Failed, ch.Verdict
	} else {
		p.State, p.Chosen, p.Error = Completed, best.ID, ""
		p.Result, p.Diff, p.ChangedLines, p.VerifyOK = best.Result, best.Diff, best.ChangedLines, best.VerifyOK
		p.Commands, p.FailedCommands = best.Commands, best.FailedCommands
		p.Workspace, p.Session = best.Workspace, best.Session
	}
	// Of two workers settling at once, the first end stands.
	_, _, _ = c.end(ctx, p)
}

// Pick chooses the best of a best-of-N task's finished runs: completed
// ones only; with a verify command, those that passed it; then the fewest
// changed lines, then the lowest cost, then the first run. It returns nil
// and why when no run qualifies.
func Pick(runs []*Task, verified bool) (*Task, string) {
	var ok []*Task
	for _, r := range runs {
		if r.State != Completed {
			continue
		}
		if verified && (r.VerifyOK == nil || !*r.VerifyOK) {
			continue
		}
		ok = append(ok, r)
	}
	if len(ok) == 0 {
		if verified {
			return nil, fmt.Sprintf("none of the %d runs completed and passed the verify command", len(runs))
		}
		return nil, fmt.Sprintf("none of the %d runs completed", len(runs))
	}
	return slices.MinFunc(ok, func(a, b *Task) int {
		switch {
		case a.ChangedLines != b.ChangedLines:
			return a.ChangedLines - b.ChangedLines
		case a.CostUSD < b.CostUSD:
			return -1
		case a.CostUSD > b.CostUSD:
			return 1
		}
		return a.Run - b.Run
	}), ""
}
