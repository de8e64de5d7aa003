package fleet

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseVerdict(t *testing.T) {
	cands := []*Task{{Run: 1}, {Run: 3}}
	tests := []struct {
		answer string
		run    int
		reason string
		err    string
	}{
		{`{"best": 3, "reason": "smaller"}`, 3, "smaller", ""},
		{"Here you go:\n```json\n{\"best\":1,\"reason\":\" tests pass \"}\n```", 1, "tests pass", ""},
		{`{"best": 1}`, 1, "(no reason given)", ""},
		{`{"best": 2, "reason": "x"}`, 0, "", "it chose attempt 2, which is not one of the candidates"},
		{`{"reason": "x"}`, 0, "", "is not a JSON object"},
		{`{"best": "one"}`, 0, "", "is not a JSON object"},
		{"the first", 0, "", "is not a JSON object"},
		{"}{", 0, "", "is not a JSON object"},
		{"", 0, "", "is not a JSON object"},
	}
	for _, tc := range tests {
		best, reason, err := parseVerdict(tc.answer, cands)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.answer, err, tc.err)
			}
			continue
		}
		if err != nil || best.Run != tc.run || reason != tc.reason {
			t.Errorf("%q: run %v reason %q err %v; want %d %q", tc.answer, best, reason, err, tc.run, tc.reason)
		}
	}
}

func FuzzParseVerdict(f *testing.F) {
	f.Add(`{"best": 1, "reason": "x"}`)
	f.Add("```{\"best\":2}```")
	f.Fuzz(func(t *testing.T, answer string) {
		cands := []*Task{{Run: 1}, {Run: 2}}
		best, _, err := parseVerdict(answer, cands)
		if err == nil && best != cands[0] && best != cands[1] {
			t.Fatalf("chose a run that is not a candidate: %+v", best)
		}
	})
}

func TestChoose(t *testing.T) {
	yes, no := true, false
	runs := func() []*Task {
		return []*Task{
			{Run: 1, State: Completed, ChangedLines: 9, VerifyOK: &yes},
			{Run: 2, State: Completed, ChangedLines: 3, VerifyOK: &no},
			{Run: 3, State: Completed, ChangedLines: 5, VerifyOK: &yes},
			{Run: 4, State: Failed, ChangedLines: 1},
		}
	}
	pickFirst := func(_ context.Context, _ string, c []*Task) (*Task, string, float64, error) {
		return c[0], "first", 0.5, nil
	}
	failing := func(context.Context, string, []*Task) (*Task, string, float64, error) {
		return nil, "", 0.25, errors.New("its answer \"?\" is not a JSON object")
	}
	var seen []int
	recording := func(_ context.Context, _ string, c []*Task) (*Task, string, float64, error) {
		for _, r := range c {
			seen = append(seen, r.Run)
		}
		return c[len(c)-1], "last", 0, nil
	}
	tests := []struct {
		name      string
		runs      []*Task
		verified  bool
		judge     JudgeFunc
		best      int
		by, warn  string
		cost      float64
		candRuns  []int
		noVerdict bool
	}{
		{name: "verify then fewest lines", runs: runs(), verified: true, best: 3, by: "fewest-lines"},
		{name: "fewest lines", runs: runs(), best: 2, by: "fewest-lines"},
		{name: "judge", runs: runs(), verified: true, judge: pickFirst, best: 1, by: "judge", cost: 0.5},
		{name: "judge sees only candidates", runs: runs(), verified: true, judge: recording, best: 3, by: "judge", candRuns: []int{1, 3}},
		{name: "judge fails", runs: runs(), verified: true, judge: failing, best: 3, by: "fewest-lines", warn: "the judge could not choose (its answer", cost: 0.25},
		{name: "one candidate needs no judge", runs: runs()[1:], verified: true, judge: failing, best: 3, by: "verify"},
		{name: "none", runs: runs()[3:], judge: pickFirst, best: 0, noVerdict: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seen = nil
			ch := Choose(context.Background(), "task", tc.runs, tc.verified, tc.judge)
			got := 0
			if ch.Best != nil {
				got = ch.Best.Run
			}
			if got != tc.best || ch.By != tc.by || ch.Cost != tc.cost || !strings.Contains(ch.Warning, tc.warn) || (tc.warn == "") != (ch.Warning == "") {
				t.Fatalf("Choose = run %d by %q cost %g warning %q; want run %d by %q cost %g warning %q", got, ch.By, ch.Cost, ch.Warning, tc.best, tc.by, tc.cost, tc.warn)
			}
			if ch.Verdict == "" || tc.noVerdict && !strings.Contains(ch.Verdict, "none of the 1 runs completed") {
				t.Errorf("verdict %q", ch.Verdict)
			}
			if tc.candRuns != nil && !slices.Equal(seen, tc.candRuns) {
				t.Errorf("the judge saw runs %v, want %v", seen, tc.candRuns)
			}
		})
	}
}

func TestJudgePromptBoundsDiffs(t *testing.T) {
	big := strings.Repeat("+x\n", judgeDiffBudget)
	p := judgePrompt("do it", []*Task{{Run: 1, Diff: big}, {Run: 2, Diff: "+small\n"}})
	if len(p) > judgeDiffBudget+8<<10 || !strings.Contains(p, "… (cut)") || !strings.Contains(p, "+small") || !strings.Contains(p, "one of 1, 2") {
		t.Errorf("prompt of %d bytes does not bound the diffs or lacks a run", len(p))
	}
}
