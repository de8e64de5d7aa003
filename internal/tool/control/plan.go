package control

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openseek/openseek/internal/tool"
)

// Step statuses of a plan.
const (
	StepPending    = "pending"
	StepInProgress = "in_progress"
	StepCompleted  = "completed"
)

// PlanData is the plan as Result.Data carries it (and the session records).
type PlanData struct {
	Explanation string `json:"explanation,omitempty"`
	Steps       []Step `json:"steps"`
}

// Step is one plan item.
type Step struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

type planArgs struct {
	Explanation string `json:"explanation,omitempty" jsonschema:"why the plan changed"`
	Steps       []Step `json:"steps"`
}

// AdjustSchema adds the status enum.
func (planArgs) AdjustSchema(s *tool.Schema) {
	s.Properties["steps"].Items.Properties["status"].Enum = []any{StepPending, StepInProgress, StepCompleted}
}

const planDescription = "Record your plan as a checklist; send the whole list on every update. " +
	"At most one step in_progress."

// Plan is the plan tool.
func Plan() tool.Tool {
	return tool.Func("plan", planDescription, runPlan)
}

func runPlan(_ context.Context, _ *tool.Env, a planArgs) tool.Result {
	inProgress, done := 0, 0
	for i, s := range a.Steps {
		if strings.TrimSpace(s.Step) == "" {
			return brief(tool.Errorf("error: plan requires arguments.steps[%d].step to be a non-empty string", i), "plan")
		}
		switch s.Status {
		case StepInProgress:
			inProgress++
		case StepCompleted:
			done++
		case StepPending:
		default:
			return brief(tool.Errorf("error: plan requires arguments.steps[%d].status to be pending, in_progress or completed", i), "plan")
		}
	}
	if inProgress > 1 {
		return brief(tool.Errorf("error: plan allows at most one in_progress step (got %d)", inProgress), "plan")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "plan updated: %d/%d completed", done, len(a.Steps))
	for _, s := range a.Steps {
		mark := "[ ]"
		switch s.Status {
		case StepInProgress:
			mark = "[>]"
		case StepCompleted:
			mark = "[x]"
		}
		fmt.Fprintf(&b, "\n%s %s", mark, s.Step)
	}
	res := tool.TextResult(b.String())
	steps := a.Steps
	if steps == nil {
		steps = []Step{}
	}
	res.Data, _ = json.Marshal(PlanData{Explanation: strings.TrimSpace(a.Explanation), Steps: steps})
	return brief(res, fmt.Sprintf("plan %d/%d", done, len(a.Steps)))
}
