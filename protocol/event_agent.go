package protocol

// Agent loop events (reference §5.1).

// AgentSetupFailed: the engine could not build the agent (e.g. no API key).
type AgentSetupFailed struct{ Error string }

// AgentStep starts step Step (1-based within the turn).
type AgentStep struct{ Step int }

// StreamRetry: the provider request failed; attempt Attempt of MaxAttempts
// follows after backoff, so partial output of the failed attempt may be
// discarded. Never persisted.
type StreamRetry struct {
	Attempt, MaxAttempts int
	Reason               string
}

// AgentAborted ends a turn that was interrupted.
type AgentAborted struct{ Reason string }

// AgentFinished ends a turn with the final answer.
type AgentFinished struct{ Answer string }

// MaxStepsExhausted ends a turn that hit the step limit.
type MaxStepsExhausted struct{}

// TurnFailed ends a turn with an error.
type TurnFailed struct{ Error string }

// AssistantDelta is a streamed fragment of the assistant's message.
type AssistantDelta struct{ Content string }

// ReasoningDelta is a transient reasoning fragment (clients may ignore it).
type ReasoningDelta struct{ Content string }

// AssistantMessage is the complete assistant message of a step.
type AssistantMessage struct{ Content string }

// ReasoningMessage is the complete reasoning of a step, emitted once.
type ReasoningMessage struct{ Content string }

// UsageEvent reports the token usage of one model response (wire "usage").
type UsageEvent struct{ Usage Usage }

// ToolResult is a finished tool call; Brief is an optional one-line summary
// (written as null when nil).
type ToolResult struct {
	ToolCallID, ToolName string
	IsError              bool
	Content              string
	Brief                *string
	// Diff is an additive key (omitted when nil): the unified diff of the
	// files an edit tool changed, for clients that show it.
	Diff *string
}

// ToolCallDecodeError: the model's arguments for a tool call did not decode.
type ToolCallDecodeError struct{ ToolCallID, ToolName, Error string }

func (AgentSetupFailed) EventName() string    { return "agent_setup_failed" }
func (AgentStep) EventName() string           { return "agent_step" }
func (StreamRetry) EventName() string         { return "stream_retry" }
func (AgentAborted) EventName() string        { return "agent_aborted" }
func (AgentFinished) EventName() string       { return "agent_finished" }
func (MaxStepsExhausted) EventName() string   { return "max_steps_exhausted" }
func (TurnFailed) EventName() string          { return "turn_failed" }
func (AssistantDelta) EventName() string      { return "assistant_delta" }
func (ReasoningDelta) EventName() string      { return "reasoning_delta" }
func (AssistantMessage) EventName() string    { return "assistant_message" }
func (ReasoningMessage) EventName() string    { return "reasoning_message" }
func (UsageEvent) EventName() string          { return "usage" }
func (ToolResult) EventName() string          { return "tool_result" }
func (ToolCallDecodeError) EventName() string { return "tool_call_decode_error" }

func (e AgentSetupFailed) appendFields(b []byte) []byte { return appendStrField(b, "error", e.Error) }
func (e AgentStep) appendFields(b []byte) []byte        { return appendIntField(b, "step", e.Step) }
func (e StreamRetry) appendFields(b []byte) []byte {
	b = appendIntField(b, "attempt", e.Attempt)
	b = appendIntField(b, "max_attempts", e.MaxAttempts)
	return appendStrField(b, "reason", e.Reason)
}
func (e AgentAborted) appendFields(b []byte) []byte      { return appendStrField(b, "reason", e.Reason) }
func (e AgentFinished) appendFields(b []byte) []byte     { return appendStrField(b, "answer", e.Answer) }
func (e MaxStepsExhausted) appendFields(b []byte) []byte { return b }
func (e TurnFailed) appendFields(b []byte) []byte        { return appendStrField(b, "error", e.Error) }
func (e AssistantDelta) appendFields(b []byte) []byte    { return appendStrField(b, "content", e.Content) }
func (e ReasoningDelta) appendFields(b []byte) []byte    { return appendStrField(b, "content", e.Content) }
func (e AssistantMessage) appendFields(b []byte) []byte {
	return appendStrField(b, "content", e.Content)
}
func (e ReasoningMessage) appendFields(b []byte) []byte {
	return appendStrField(b, "content", e.Content)
}
func (e UsageEvent) appendFields(b []byte) []byte {
	return e.Usage.AppendJSON(appendKey(b, "usage"))
}
func (e ToolResult) appendFields(b []byte) []byte {
	b = appendStrField(b, "tool_call_id", e.ToolCallID)
	b = appendStrField(b, "tool_name", e.ToolName)
	b = appendBoolField(b, "is_error", e.IsError)
	b = appendStrField(b, "content", e.Content)
	b = appendOptStrField(b, "brief", e.Brief)
	return appendOmitStrField(b, "diff", e.Diff)
}
func (e ToolCallDecodeError) appendFields(b []byte) []byte {
	b = appendStrField(b, "tool_call_id", e.ToolCallID)
	b = appendStrField(b, "tool_name", e.ToolName)
	return appendStrField(b, "error", e.Error)
}

func parseAgentEvent(name string, f *fields) Event {
	switch name {
	case "agent_setup_failed":
		return AgentSetupFailed{Error: f.str("error")}
	case "agent_step":
		return AgentStep{Step: f.int("step")}
	case "stream_retry":
		return StreamRetry{Attempt: f.int("attempt"), MaxAttempts: f.int("max_attempts"), Reason: f.str("reason")}
	case "agent_aborted":
		return AgentAborted{Reason: f.str("reason")}
	case "agent_finished":
		return AgentFinished{Answer: f.str("answer")}
	case "max_steps_exhausted":
		return MaxStepsExhausted{}
	case "turn_failed":
		return TurnFailed{Error: f.str("error")}
	case "assistant_delta":
		return AssistantDelta{Content: f.str("content")}
	case "reasoning_delta":
		return ReasoningDelta{Content: f.str("content")}
	case "assistant_message":
		return AssistantMessage{Content: f.str("content")}
	case "reasoning_message":
		return ReasoningMessage{Content: f.str("content")}
	case "usage":
		var u Usage
		f.ok = f.ok && u.UnmarshalJSON(f.o["usage"]) == nil
		return UsageEvent{Usage: u}
	case "tool_result":
		return ToolResult{ToolCallID: f.str("tool_call_id"), ToolName: f.str("tool_name"),
			IsError: f.bool("is_error"), Content: f.str("content"), Brief: f.optStr("brief"), Diff: f.optStr("diff")}
	case "tool_call_decode_error":
		return ToolCallDecodeError{ToolCallID: f.str("tool_call_id"), ToolName: f.str("tool_name"), Error: f.str("error")}
	}
	return nil
}
