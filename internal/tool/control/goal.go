package control

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openseek/openseek/internal/tool"
)

// Goal statuses.
const (
	GoalMet        = "met"
	GoalContinuing = "continuing"
	GoalBlocked    = "blocked"
)

// Runtime notices goal asks the loop to append.
const (
	NoticeGoalCleared = "[goal cleared]"
	NoticeGoalBlocked = "[goal blocked]" // followed by "\n<reason>"
)

type goalArgs struct {
	Status    string `json:"status"`
	Remaining string `json:"remaining,omitempty" jsonschema:"Required when status is \"continuing\": one or two lines on what is left to reach the goal."`
	Reason    string `json:"reason,omitempty" jsonschema:"Why the goal cannot proceed; required with status \"blocked\"."`
}

// AdjustSchema gives goal the exact schema of the reference: the status
// enum and additionalProperties:false.
func (goalArgs) AdjustSchema(s *tool.Schema) {
	s.Properties["status"].Enum = []any{GoalMet, GoalContinuing, GoalBlocked}
	s.Closed = true
}

// UnmarshalJSON refuses keys the schema does not name, as
// additionalProperties:false promises.
func (a *goalArgs) UnmarshalJSON(b []byte) error {
	type plain goalArgs
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(a)); err != nil {
		if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return &tool.ArgError{Tool: "goal", Msg: fmt.Sprintf("error: goal does not take arguments.%s", strings.Trim(key, `"`))}
		}
		return tool.MissingArg("goal", "status")
	}
	return nil
}

const goalDescription = "Report on the standing goal: met (done; clears it), continuing (say what remains), " +
	"or blocked (say why; auto-continuation pauses)."

// Goal is the goal tool.
func Goal() tool.Tool {
	return tool.Func("goal", goalDescription, runGoal)
}

type goalData struct {
	Status    string `json:"status"`
	Remaining string `json:"remaining,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

func runGoal(_ context.Context, _ *tool.Env, a goalArgs) tool.Result {
	res := tool.TextResult("goal status recorded")
	switch a.Status {
	case GoalMet:
		res.Notices = []string{NoticeGoalCleared}
	case GoalContinuing:
		if strings.TrimSpace(a.Remaining) == "" {
			return brief(tool.Errorf(`error: goal requires a string "remaining" when status is "continuing"`), "goal")
		}
	case GoalBlocked:
		if strings.TrimSpace(a.Reason) == "" {
			return brief(tool.Errorf(`error: goal requires a string "reason" when status is "blocked"`), "goal")
		}
		res.Notices = []string{NoticeGoalBlocked + "\n" + strings.TrimSpace(a.Reason)}
	default:
		return brief(tool.Errorf("error: goal requires arguments.status to be one of met, continuing, blocked"), "goal")
	}
	res.Data, _ = json.Marshal(goalData{Status: a.Status, Remaining: strings.TrimSpace(a.Remaining), Reason: strings.TrimSpace(a.Reason)})
	return brief(res, "goal "+a.Status)
}

func brief(r tool.Result, b string) tool.Result {
	r.Brief = b
	return r
}
