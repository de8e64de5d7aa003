package protocol

import "fmt"

// Warning is the sentence a person should read for an event that warns
// (a background notice, an MCP or configuration problem, a retried
// stream, a lost stretch of the stream), and false for every other event.
// Every frontend shows these whole, so no warning is seen only by JSONL
// readers.
func Warning(e Event) (string, bool) {
	switch e := e.(type) {
	case BackgroundNotice:
		return e.Content, true
	case McpConfigIgnored:
		return "MCP config ignored: " + e.Reason, true
	case McpConfigUnreadable:
		return fmt.Sprintf("MCP config %s could not be read: %s", e.Path, e.Error), true
	case McpConfigInvalid:
		return fmt.Sprintf("MCP config %s is invalid: %s", e.Path, e.Error), true
	case McpConnectFailed:
		return fmt.Sprintf("MCP server %s could not start: %s", e.Server, e.Error), true
	case McpListToolsFailed:
		return fmt.Sprintf("MCP server %s: listing its tools failed: %s", e.Server, e.Error), true
	case McpListToolsTimeout:
		return fmt.Sprintf("MCP server %s did not list its tools in time", e.Server), true
	case McpNoTools:
		return fmt.Sprintf("MCP server %s offers no tools", e.Server), true
	case McpToolDuplicate:
		return fmt.Sprintf("MCP server %s offered tool %s twice; the second was dropped", e.Server, e.Tool), true
	case McpToolsCapped:
		return fmt.Sprintf("MCP server %s: only %d of its tools were registered (tool cap)", e.Server, e.Kept), true
	case McpServerSkippedOverCap:
		return fmt.Sprintf("MCP server %s was skipped: the tool cap was reached", e.Server), true
	case StreamRetry:
		// Attempt counts requests (the first retry is attempt 2); people
		// count retries: "retry 1 of 4" for attempt 2 of 5.
		return fmt.Sprintf("model request failed (%s); retry %d of %d", e.Reason, max(e.Attempt-1, 1), max(e.MaxAttempts-1, 1)), true
	case StreamReset:
		return "events were missed: " + e.Reason, true
	case CommandError:
		return "command refused: " + e.Error, true
	case SessionError:
		return "session error: " + e.Error, true
	case UnverifiedClaim:
		return e.Message, true
	}
	return "", false
}
