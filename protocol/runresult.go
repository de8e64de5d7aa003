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
}
