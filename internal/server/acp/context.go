package acp

import (
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/protocol"
)

// usage is the context's health as ACP's usage_update (an editor such as
// Zed draws it as the context meter): tokens in context against the
// window; the compactions, the read ledger's savings and the line every
// other face writes ride in _meta.openseek.
func usage(e protocol.ContextHealth) sdk.SessionUpdate {
	return sdk.SessionUpdate{UsageUpdate: &sdk.SessionUsageUpdate{
		SessionUpdate: "usage_update",
		Used:          e.UsedTokens,
		Size:          e.Window,
		Meta: map[string]any{"openseek": map[string]any{
			"compactions":      e.Compactions,
			"rereadsAvoided":   e.RereadsAvoided,
			"rereadBytesSaved": e.RereadBytesSaved,
			"text":             render.ContextLine(e),
		}},
	}}
}

// compactionStarted shows a compaction as a tool call of its own, in
// progress, as long as the model writes the summary.
func (t *translator) compactionStarted(from, to int) []sdk.SessionUpdate {
	t.compactions++
	t.compaction = fmt.Sprintf("compaction-%d", t.compactions)
	return []sdk.SessionUpdate{sdk.StartToolCall(sdk.ToolCallId(t.compaction),
		fmt.Sprintf("Compact the context: summarise events %d..%d", from, to),
		sdk.WithStartKind(sdk.ToolKindThink), sdk.WithStartStatus(sdk.ToolCallStatusInProgress))}
}

// compactionReport completes the compaction's call (announcing it first
// when its start was not seen) with what it summarised, in the words of
// every face.
func (t *translator) compactionReport(e protocol.CompactionReport) []sdk.SessionUpdate {
	var ups []sdk.SessionUpdate
	if t.compaction == "" {
		ups = t.compactionStarted(e.FromSequence, e.ToSequence)
	}
	id := t.compaction
	t.compaction = ""
	return append(ups, sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(render.CompactionText(e)))})))
}

// compactionFailed fails the running compaction's call, or says so as a
// notice when none was shown (no point to compact at was found).
func (t *translator) compactionFailed(msg string) []sdk.SessionUpdate {
	text := "compaction failed: " + msg
	if t.compaction == "" {
		return []sdk.SessionUpdate{notice(text)}
	}
	id := t.compaction
	t.compaction = ""
	return []sdk.SessionUpdate{sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}))}
}
