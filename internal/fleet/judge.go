package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openseek/openseek/internal/engine"
)

// Choice is how a best-of-N pick was made.
type Choice struct {
	Best *Task // nil when no run qualifies
	// By is "judge", "verify" (the only run that passed), "fewest-lines"
	// or "only" (the one candidate); "" when none was chosen.
	By      string
	Verdict string  // why, in words
	Warning string  // the judge failed and the rule decided instead
	Cost    float64 // the judge's cost, USD
}

// JudgeFunc asks a judging model which of the candidate runs is best; it
// returns the chosen run, the reason and what the call cost.
type JudgeFunc func(ctx context.Context, task string, candidates []*Task) (best *Task, reason string, cost float64, err error)

// Choose picks the best of a best-of-N task's finished runs: the runs
// that completed (and passed the verify command, when verified) are the
// candidates; with judge and more than one candidate, the judge picks;
// else, or when the judge fails (with a warning), Pick's rule does.
func Choose(ctx context.Context, task string, runs []*Task, verified bool, judge JudgeFunc) Choice {
	var cands []*Task
	for _, r := range runs {
		if r.State == Completed && (!verified || r.VerifyOK != nil && *r.VerifyOK) {
			cands = append(cands, r)
		}
	}
	var ch Choice
	if judge != nil && len(cands) > 1 {
		best, reason, cost, err := judge(ctx, task, cands)
		ch.Cost = cost
		if err == nil {
			ch.Best, ch.By, ch.Verdict = best, "judge", fmt.Sprintf("run %d, chosen by the judge: %s", best.Run, reason)
			return ch
		}
		ch.Warning = fmt.Sprintf("the judge could not choose (%v); chose by the verify command, then fewest changed lines", err)
	}
	best, why := Pick(runs, verified)
	if best == nil {
		ch.Verdict = why
		return ch
	}
	ch.Best = best
	switch {
	case len(cands) == 1 && verified:
		ch.By, ch.Verdict = "verify", fmt.Sprintf("run %d, the only run that completed and passed the verify command", best.Run)
	case len(cands) == 1:
		ch.By, ch.Verdict = "only", fmt.Sprintf("run %d, the only run that completed", best.Run)
	case verified:
		ch.By, ch.Verdict = "fewest-lines", fmt.Sprintf("run %d: of the %d runs that passed the verify command, the fewest changed lines (%d)", best.Run, len(cands), best.ChangedLines)
	default:
		ch.By, ch.Verdict = "fewest-lines", fmt.Sprintf("run %d: of the %d completed runs, the fewest changed lines (%d)", best.Run, len(cands), best.ChangedLines)
	}
	return ch
}

// judgeDiffBudget bounds the diffs shown to the judge, all runs together.
const judgeDiffBudget = 120 << 10

// judgePrompt is what the judge reads: the task, then each candidate's
// outcome and diff (each cut to its share of the budget).
func judgePrompt(task string, cands []*Task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are judging %d attempts at one coding task, each made in its own copy of the code base. Pick the attempt that does the task best: correct, complete, no unrelated changes, in the code base's style. Do not change any file.\n\n<task>\n%s\n</task>\n", len(cands), task)
	share := judgeDiffBudget / len(cands)
	for _, c := range cands {
		verify := "not run"
		if c.VerifyOK != nil {
			verify = map[bool]string{true: "passed", false: "failed"}[*c.VerifyOK]
		}
		fmt.Fprintf(&b, "\n<attempt number=\"%d\" verify=\"%s\" changed_lines=\"%d\">\n<final_answer>\n%s\n</final_answer>\n<diff>\n", c.Run, verify, c.ChangedLines, cut(c.Result, 2000))
		b.WriteString(cut(c.Diff, share))
		b.WriteString("\n</diff>\n</attempt>\n")
	}
	nums := make([]string, len(cands))
	for i, c := range cands {
		nums[i] = fmt.Sprint(c.Run)
	}
	fmt.Fprintf(&b, "\nAnswer with one JSON object and nothing else: {\"best\": <the attempt number, one of %s>, \"reason\": \"<one or two sentences>\"}\n", strings.Join(nums, ", "))
	return b.String()
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n… (cut)"
}

// parseVerdict reads the judge's answer: a JSON object {"best","reason"}
// naming one of the candidates, possibly inside a code fence.
func parseVerdict(answer string, cands []*Task) (*Task, string, error) {
	i, j := strings.IndexByte(answer, '{'), strings.LastIndexByte(answer, '}')
	if i < 0 || j < i {
		return nil, "", fmt.Errorf("its answer %q is not a JSON object {\"best\": N, \"reason\": \"…\"}", cut(answer, 200))
	}
	var v struct {
		Best   *int   `json:"best"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(answer[i:j+1]), &v); err != nil || v.Best == nil {
		return nil, "", fmt.Errorf("its answer %q is not a JSON object {\"best\": N, \"reason\": \"…\"}", cut(answer, 200))
	}
	for _, c := range cands {
		if c.Run == *v.Best {
			reason := strings.TrimSpace(v.Reason)
			if reason == "" {
				reason = "(no reason given)"
			}
			return c, reason, nil
		}
	}
	return nil, "", fmt.Errorf("it chose attempt %d, which is not one of the candidates", *v.Best)
}

// EngineJudge is a JudgeFunc that asks the model of eo (read-only: plan
// mode, no session, no turn-end check) in the workspace eo.Dir.
func EngineJudge(eo engine.Options) JudgeFunc {
	return func(ctx context.Context, task string, cands []*Task) (*Task, string, float64, error) {
		eo.Approval = "plan"
		eo.NoVerify = true
		eo.IDPrefix = "judge"
		tr, err := runTurn(ctx, turnSpec{Engine: eo, Holder: "openseek judge", Prompt: judgePrompt(task, cands), NoSession: true})
		if err != nil {
			return nil, "", 0, err
		}
		if tr.Err != nil {
			return nil, "", tr.Cost, tr.Err
		}
		if !tr.Out.OK() {
			return nil, "", tr.Cost, errors.New("its turn ended " + string(tr.Out.Kind) + ": " + cut(tr.Out.Answer, 200))
		}
		best, reason, err := parseVerdict(tr.Out.Answer, cands)
		return best, reason, tr.Cost, err
	}
}
