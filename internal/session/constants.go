package session

// Texts and limits the format fixes (reference §8, §6).
const (
	// Version is the only header version this build reads and writes.
	Version = 1

	// ContextCeilingPrefix starts the message of a context-yield terminal.
	ContextCeilingPrefix = "[context ceiling]"
	// MaxStepsText is the legacy failure text of step exhaustion.
	MaxStepsText = "max steps exhausted"
	// PlanReminderPrefix starts plan-cadence reminder notices.
	PlanReminderPrefix = "[plan reminder]"

	// Goal markers stored as runtime notices.
	GoalSetPrefix       = "[goal]\n"
	GoalCleared         = "[goal cleared]"
	GoalBlockedPrefix   = "[goal blocked]\n"
	GoalUnblocked       = "[goal unblocked]"
	GoalBaselinePrefix  = "[goal baseline] sha="
	GoalReminderPrefix  = "[goal reminder]"
	GoalCheckPrefix     = "[goal check]"
	GoalContinuePrompt  = "Continue working toward the standing goal. When it is fully met, record\nthat by calling the goal tool with status \"met\"."
	summaryHeader       = "[conversation summary]\nsource_events="
	missingResultPrefix = "error: previous agent process exited before recording a result for tool "

	// firstPromptLines bounds the listing's scan for the first user prompt.
	firstPromptLines = 50
)
