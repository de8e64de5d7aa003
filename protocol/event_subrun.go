package protocol

// Sub-run and workflow events (reference §5.7).

// Sub-run statuses (SubrunFinished.Status).
const (
	SubrunCaptured     = "captured"
	SubrunNoReport     = "no_report"
	SubrunMaxSteps     = "max_steps"
	SubrunContextYield = "context_yield"
	SubrunTimedOut     = "timed_out"
	SubrunFailed       = "failed"
	SubrunCancelled    = "cancelled"
)

// SubrunStarted: a child run of Kind (e.g. "review") began; Label is short.
type SubrunStarted struct{ ID, Kind, Label string }

// SubrunFinished is emitted on every sub-run exit, before the parent turn's
// own terminal event. Unaccounted (written only when present) explains why
// the counts may under-report the child's spend.
type SubrunFinished struct {
	ID, Status                            string
	Steps, PromptTokens, CompletionTokens int
	Unaccounted                           *string `wire:",omitempty"`
}

// Spent is the child's usage as its parent's totals count it: its prompt
// tokens all uncached (the child's own responses, with their cache
// split, are in its own session).
func (e SubrunFinished) Spent() Usage {
	return Usage{PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens,
		TotalTokens: e.PromptTokens + e.CompletionTokens, PromptCacheMissTokens: e.PromptTokens}
}

// WorkflowStarted: child sessions <parent>-sr-N for N in
// [FirstChild, FirstChild+ChildCount); Journal and Events are absolute paths.
type WorkflowStarted struct {
	ID, Journal, Events    string
	FirstChild, ChildCount int
}

// WorkflowFinished is emitted on every workflow exit.
type WorkflowFinished struct{ ID string }
