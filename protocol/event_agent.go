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
	Diff *string `wire:",omitempty"`
}

// ToolCallDecodeError: the model's arguments for a tool call did not decode.
type ToolCallDecodeError struct{ ToolCallID, ToolName, Error string }
