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
	Unaccounted                           *string
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

func (SubrunStarted) EventName() string    { return "subrun_started" }
func (SubrunFinished) EventName() string   { return "subrun_finished" }
func (WorkflowStarted) EventName() string  { return "workflow_started" }
func (WorkflowFinished) EventName() string { return "workflow_finished" }

func (e SubrunStarted) appendFields(b []byte) []byte {
	b = appendStrField(b, "id", e.ID)
	b = appendStrField(b, "kind", e.Kind)
	return appendStrField(b, "label", e.Label)
}

func (e SubrunFinished) appendFields(b []byte) []byte {
	b = appendStrField(b, "id", e.ID)
	b = appendStrField(b, "status", e.Status)
	b = appendIntField(b, "steps", e.Steps)
	b = appendIntField(b, "prompt_tokens", e.PromptTokens)
	b = appendIntField(b, "completion_tokens", e.CompletionTokens)
	return appendOmitStrField(b, "unaccounted", e.Unaccounted)
}

func (e WorkflowStarted) appendFields(b []byte) []byte {
	b = appendStrField(b, "id", e.ID)
	b = appendStrField(b, "journal", e.Journal)
	b = appendStrField(b, "events", e.Events)
	b = appendIntField(b, "first_child", e.FirstChild)
	return appendIntField(b, "child_count", e.ChildCount)
}

func (e WorkflowFinished) appendFields(b []byte) []byte { return appendStrField(b, "id", e.ID) }

func parseSubrunEvent(name string, f *fields) Event {
	switch name {
	case "subrun_started":
		return SubrunStarted{ID: f.str("id"), Kind: f.str("kind"), Label: f.str("label")}
	case "subrun_finished":
		return SubrunFinished{ID: f.str("id"), Status: f.str("status"), Steps: f.int("steps"),
			PromptTokens: f.int("prompt_tokens"), CompletionTokens: f.int("completion_tokens"),
			Unaccounted: f.optStr("unaccounted")}
	case "workflow_started":
		return WorkflowStarted{ID: f.str("id"), Journal: f.str("journal"), Events: f.str("events"),
			FirstChild: f.int("first_child"), ChildCount: f.int("child_count")}
	case "workflow_finished":
		return WorkflowFinished{ID: f.str("id")}
	}
	return nil
}
