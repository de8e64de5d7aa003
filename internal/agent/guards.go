package agent

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool/control"
)

// Cadences of the reminders the loop appends to the conversation. They
// are appended (never put in the system prompt) so the request prefix
// stays cacheable.
const (
	DefaultGoalReminderEvery = 12 // steps between standing-goal reminders
	DefaultPlanReminderEvery = 8  // steps without a plan update before a reminder
	loopWindow               = 8  // steps the loop guard looks back
	loopWarnAt               = 4  // identical calls in the window → a notice
	loopStopAt               = 6  // identical calls after the notice → the turn ends
)

// loopGuard notices a model repeating the same tool call with the same
// arguments.
type loopGuard struct {
	steps  [][]string // call signatures per step, newest last
	warned map[string]bool
}

func signature(c chat.ToolCall) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(c.Arguments)); err != nil {
		return c.Name + "\x00" + c.Arguments
	}
	return c.Name + "\x00" + buf.String()
}

// observe records one step's calls and returns the signature repeated
// most often in the window with its count.
func (g *loopGuard) observe(calls []chat.ToolCall) (string, string, int) {
	sigs := make([]string, len(calls))
	for i, c := range calls {
		sigs[i] = signature(c)
	}
	g.steps = append(g.steps, sigs)
	if len(g.steps) > loopWindow+2 {
		g.steps = g.steps[1:]
	}
	counts := map[string]int{}
	for _, step := range g.steps {
		for _, s := range step {
			counts[s]++
		}
	}
	best, name, n := "", "", 0
	for i, s := range sigs {
		if counts[s] > n {
			best, name, n = s, calls[i].Name, counts[s]
		}
	}
	return best, name, n
}

// check returns a notice to append (warn) or a reason to end the turn.
func (g *loopGuard) check(calls []chat.ToolCall) (notice, stop string) {
	sig, name, n := g.observe(calls)
	if g.warned == nil {
		g.warned = map[string]bool{}
	}
	switch {
	case n >= loopStopAt && g.warned[sig]:
		return "", fmt.Sprintf("loop guard: %s was called %d times with the same arguments in the last %d steps", name, n, len(g.steps))
	case n >= loopWarnAt && !g.warned[sig]:
		g.warned[sig] = true
		return fmt.Sprintf("[loop guard] You have called %s with the same arguments %d times in the last %d steps. Repeating it will not give a different result: read the last result carefully, change your approach, or finish with what you know. If it happens again the turn ends.", name, n, len(g.steps)), ""
	}
	return "", ""
}

// openPlan returns the steps of the most recent plan that are not
// completed, or nil when there is no plan or it is done.
func openPlan(s *session.Session) []control.Step {
	for i := len(s.Events) - 1; i >= 0; i-- {
		r, ok := s.Events[i].Item.(*session.ToolResult)
		if !ok || r.ToolName != "plan" || r.IsError || len(r.Data) == 0 {
			continue
		}
		var p control.PlanData
		if json.Unmarshal(r.Data, &p) != nil {
			return nil
		}
		var open []control.Step
		for _, st := range p.Steps {
			if st.Status != control.StepCompleted {
				open = append(open, st)
			}
		}
		return open
	}
	return nil
}
