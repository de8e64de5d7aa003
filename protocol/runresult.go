package protocol

// RunResult is what `openseek run --format json` prints when the run
// ends: one JSON object, for scripts and CI (its JSON Schema is
// docs/schema/run-result.v1.json). Optional values are null, never
// omitted.
type RunResult struct {
	// Version is 1.
	Version int `json:"version"`
	// Session is the session's id; null with --no-session.
	Session *string `json:"session"`
	// Status is how the turn ended: finished, failed, aborted,
	// interrupted, max_steps_exhausted or context_yield; "error" when the
	// run stopped outside a turn (a session error).
	Status string `json:"status"`
	// ExitCode is the process's exit status (docs/scripting-ci.md: exit codes).
	ExitCode int `json:"exit_code"`
	// Answer is the final answer when the turn finished, else null.
	Answer *string `json:"answer"`
	// Reason says why the turn did not finish; null when it did.
	Reason *string `json:"reason"`
	// Steps counts the model's answers; DurationMs is the turn's time.
	Steps      int   `json:"steps"`
	DurationMs int64 `json:"duration_ms"`
	// Usage and CostUSD are the turn's totals, sub-agents included;
	// CostUSD is null when the model's prices are unknown.
	Usage   Usage    `json:"usage"`
	CostUSD *float64 `json:"cost_usd"`
	// Warnings are the warnings the run showed (protocol.Warning), an
	// unverified claim of the answer included; [] when none.
	Warnings []string `json:"warnings"`
	// Context is how full the model's context was at the end (the last
	// context_health event); null when the run sent the model nothing.
	Context *RunContext `json:"context"`
	// Compactions are the run's compactions, in order (compaction_report
	// events), and CompactionFailures the errors of those that failed
	// (compaction_failed, auto_compaction_failed); [] when none.
	Compactions        []RunCompaction `json:"compactions"`
	CompactionFailures []string        `json:"compaction_failures"`
}

// RunContext is a context_health event in a RunResult.
type RunContext struct {
	UsedTokens       int `json:"used_tokens"`
	Window           int `json:"window"`
	Compactions      int `json:"compactions"`
	RereadsAvoided   int `json:"rereads_avoided"`
	RereadBytesSaved int `json:"reread_bytes_saved"`
}

// RunCompaction is a compaction_report event in a RunResult.
type RunCompaction struct {
	Trigger      string   `json:"trigger"`
	FromSequence int      `json:"from_sequence"`
	ToSequence   int      `json:"to_sequence"`
	Turns        int      `json:"turns"`
	Files        []string `json:"files"`
	TokensBefore int      `json:"tokens_before"`
	TokensAfter  int      `json:"tokens_after"`
	HookReplaced bool     `json:"hook_replaced"`
}
