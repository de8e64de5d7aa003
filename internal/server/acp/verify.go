package acp

import (
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/openseek/openseek/protocol"
)

// verifyStarted shows a run of the project's build check as a tool call
// of its own, in progress ("checking: <command>"); the editor shows it
// running, with its elapsed time where it shows that of tool calls.
func (t *translator) verifyStarted(e protocol.VerifyStarted) []sdk.SessionUpdate {
	t.checks++
	t.check = fmt.Sprintf("verify-%d", t.checks)
	return []sdk.SessionUpdate{sdk.StartToolCall(sdk.ToolCallId(t.check), "checking: "+e.Command,
		sdk.WithStartKind(sdk.ToolKindExecute), sdk.WithStartStatus(sdk.ToolCallStatusInProgress),
		sdk.WithStartRawInput(map[string]any{"command": e.Command, "attempt": e.Attempt}))}
}

// verifyResult completes the check's call: its title says how it ended,
// its content is a failure's output.
func (t *translator) verifyResult(e protocol.VerifyResult) []sdk.SessionUpdate {
	var ups []sdk.SessionUpdate
	if t.check == "" {
		ups = t.verifyStarted(protocol.VerifyStarted{Command: e.Command, Attempt: e.Attempt})
	}
	id := t.check
	t.check = ""
	status := sdk.ToolCallStatusCompleted
	if !e.OK {
		status = sdk.ToolCallStatusFailed
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateTitle("check " + e.Outcome() + ": " + e.Command)}
	if !e.OK && e.Output != "" {
		opts = append(opts, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(e.Output))}))
	}
	return append(ups, sdk.UpdateToolCall(sdk.ToolCallId(id), opts...))
}
