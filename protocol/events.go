package protocol

//go:generate go run ./internal/eventgen

// eventTable is the one list of the protocol's events, in the order the
// reference gives them: each wire name and the Go type that carries it.
// It is the only place an event is registered. The payload is the type's
// fields in declaration order; a field's wire key is its name in
// snake_case (ToolCallID → tool_call_id) unless a `wire:"key"` tag names
// it, and its JSON form follows its Go type:
//
//	string, int, int64, bool   required
//	*string, *float64          always written, null when nil
//	[]string, Usage, Content, JobRecord, []JobRecord   required
//
// Tag options: omitempty (the key is written only when the value is set,
// and may be absent), default=V (a string that decodes as V when absent
// or not a string). A type with a method `valid() bool` is refused by
// ParseEvent when it reports false.
//
// `go generate ./protocol` writes events_gen.go from this table: each
// type's EventName, its encoder and ParseEvent's dispatch. A test fails
// when that file is out of date or an event type is missing here.
func eventTable() []eventEntry {
	return []eventEntry{
		{"agent_setup_failed", AgentSetupFailed{}},
		{"agent_step", AgentStep{}},
		{"stream_retry", StreamRetry{}},
		{"agent_aborted", AgentAborted{}},
		{"agent_finished", AgentFinished{}},
		{"max_steps_exhausted", MaxStepsExhausted{}},
		{"turn_failed", TurnFailed{}},
		{"assistant_delta", AssistantDelta{}},
		{"reasoning_delta", ReasoningDelta{}},
		{"assistant_message", AssistantMessage{}},
		{"reasoning_message", ReasoningMessage{}},
		{"usage", UsageEvent{}},
		{"tool_result", ToolResult{}},
		{"tool_call_decode_error", ToolCallDecodeError{}},
		{"approval_requested", ApprovalRequested{}},
		{"approval_resolved", ApprovalResolved{}},
		{"steer_applied", SteerApplied{}},
		{"steer_dropped", SteerDropped{}},
		{"background_notice", BackgroundNotice{}},
		{"job_changed", JobChanged{}},
		{"jobs_snapshot", JobsSnapshot{}},
		{"job_stop_result", JobStopResult{}},
		{"goal_updated", GoalUpdated{}},
		{"goal_blocked", GoalBlocked{}},
		{"goal_unblocked", GoalUnblocked{}},
		{"goal_check", GoalCheck{}},
		{"goal_reminder", GoalReminder{}},
		{"goal_continue", GoalContinue{}},
		{"goal_budget_exhausted", GoalBudgetExhausted{}},
		{"plan_reminder", PlanReminder{}},
		{"compaction_started", CompactionStarted{}},
		{"compaction_finished", CompactionFinished{}},
		{"compaction_failed", CompactionFailed{}},
		{"auto_compaction_started", AutoCompactionStarted{}},
		{"auto_compaction_finished", AutoCompactionFinished{}},
		{"auto_compaction_failed", AutoCompactionFailed{}},
		{"context_yield", ContextYield{}},
		{"subrun_started", SubrunStarted{}},
		{"subrun_finished", SubrunFinished{}},
		{"workflow_started", WorkflowStarted{}},
		{"workflow_finished", WorkflowFinished{}},
		{"session_started", SessionStarted{}},
		{"session_error", SessionError{}},
		{"workspace_created", WorkspaceCreated{}},
		{"command_error", CommandError{}},
		{"mcp_config_ignored", McpConfigIgnored{}},
		{"mcp_config_unreadable", McpConfigUnreadable{}},
		{"mcp_config_invalid", McpConfigInvalid{}},
		{"mcp_tools_registered", McpToolsRegistered{}},
		{"mcp_tool_duplicate", McpToolDuplicate{}},
		{"mcp_tool_renamed", McpToolRenamed{}},
		{"mcp_tools_capped", McpToolsCapped{}},
		{"mcp_server_skipped_over_cap", McpServerSkippedOverCap{}},
		{"mcp_connect_failed", McpConnectFailed{}},
		{"mcp_list_tools_failed", McpListToolsFailed{}},
		{"mcp_list_tools_timeout", McpListToolsTimeout{}},
		{"mcp_no_tools", McpNoTools{}},
		{"tool_started", ToolStarted{}},
		{"stream_reset", StreamReset{}},
		{"turn_summary", TurnSummary{}},
		{"verify_started", VerifyStarted{}},
		{"verify_result", VerifyResult{}},
		{"unverified_claim", UnverifiedClaim{}},
		{"context_health", ContextHealth{}},
		{"compaction_report", CompactionReport{}},
	}
}

type eventEntry struct {
	name string
	zero Event
}

// EventTypes is one zero value of every event, in the table's order.
func EventTypes() []Event {
	t := eventTable()
	out := make([]Event, len(t))
	for i, e := range t {
		out[i] = e.zero
	}
	return out
}
