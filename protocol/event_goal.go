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
