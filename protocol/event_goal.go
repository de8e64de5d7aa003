package protocol

// Goal and plan events (reference §5.5).

// GoalUpdated: the standing goal changed; nil Goal (null) means cleared.
type GoalUpdated struct{ Goal *string }

// GoalBlocked: progress toward the goal needs outside help.
type GoalBlocked struct{ Reason string }

// GoalUnblocked: the goal is no longer blocked.
type GoalUnblocked struct{}

// GoalCheck is the goal self-check prompt.
type GoalCheck struct{ Content string }

// GoalReminder reminds the model of the goal.
type GoalReminder struct{ Content string }

// GoalContinue starts an automatic continuation turn; Remaining turns left.
type GoalContinue struct{ Remaining int }

// GoalBudgetExhausted: automatic continuation stopped after Turns turns.
type GoalBudgetExhausted struct{ Turns int }

// PlanReminder reminds the model to update its plan.
type PlanReminder struct{ Content string }

func (GoalUpdated) EventName() string         { return "goal_updated" }
func (GoalBlocked) EventName() string         { return "goal_blocked" }
func (GoalUnblocked) EventName() string       { return "goal_unblocked" }
func (GoalCheck) EventName() string           { return "goal_check" }
func (GoalReminder) EventName() string        { return "goal_reminder" }
func (GoalContinue) EventName() string        { return "goal_continue" }
func (GoalBudgetExhausted) EventName() string { return "goal_budget_exhausted" }
func (PlanReminder) EventName() string        { return "plan_reminder" }

func (e GoalUpdated) appendFields(b []byte) []byte   { return appendOptStrField(b, "goal", e.Goal) }
func (e GoalBlocked) appendFields(b []byte) []byte   { return appendStrField(b, "reason", e.Reason) }
func (e GoalUnblocked) appendFields(b []byte) []byte { return b }
func (e GoalCheck) appendFields(b []byte) []byte     { return appendStrField(b, "content", e.Content) }
func (e GoalReminder) appendFields(b []byte) []byte  { return appendStrField(b, "content", e.Content) }
func (e GoalContinue) appendFields(b []byte) []byte {
	return appendIntField(b, "remaining", e.Remaining)
}
func (e GoalBudgetExhausted) appendFields(b []byte) []byte {
	return appendIntField(b, "turns", e.Turns)
}
func (e PlanReminder) appendFields(b []byte) []byte { return appendStrField(b, "content", e.Content) }

func parseGoalEvent(name string, f *fields) Event {
	switch name {
	case "goal_updated":
		return GoalUpdated{Goal: f.optStr("goal")}
	case "goal_blocked":
		return GoalBlocked{Reason: f.str("reason")}
	case "goal_unblocked":
		return GoalUnblocked{}
	case "goal_check":
		return GoalCheck{Content: f.str("content")}
	case "goal_reminder":
		return GoalReminder{Content: f.str("content")}
	case "goal_continue":
		return GoalContinue{Remaining: f.int("remaining")}
	case "goal_budget_exhausted":
		return GoalBudgetExhausted{Turns: f.int("turns")}
	case "plan_reminder":
		return PlanReminder{Content: f.str("content")}
	}
	return nil
}
