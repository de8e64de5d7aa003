package session

import (
	"fmt"
	"strings"

	"github.com/openseek/openseek/protocol"
)

// ApprovalPrefix starts the runtime notice that records an approval
// question or its answer (an OpenSeek extension of the format, which other
// readers see as a plain notice): the approval_requested or
// approval_resolved event line follows. Like the snapshot markers it is
// bookkeeping, never shown to the model.
const ApprovalPrefix = "[approval] "

// ApprovalMarker is the notice recording an approval event.
func ApprovalMarker(e protocol.Event) string { return ApprovalPrefix + string(protocol.Emit(e)) }

// ParseApproval reads an approval marker: a protocol.ApprovalRequested or
// protocol.ApprovalResolved.
func ParseApproval(c string) (protocol.Event, bool) {
	line, ok := strings.CutPrefix(c, ApprovalPrefix)
	if !ok {
		return nil, false
	}
	e, ok := protocol.ParseEvent([]byte(line))
	if !ok {
		return nil, false
	}
	switch e.(type) {
	case protocol.ApprovalRequested, protocol.ApprovalResolved:
		return e, true
	}
	return nil, false
}

// DescribeApproval is one line of words for an approval event, as
// transcripts and timelines show it: "approval ap-1 asked: shell wants to
// run git push origin a — <why>", "approval ap-1: rejected — <reason>".
func DescribeApproval(e protocol.Event) string {
	switch e := e.(type) {
	case protocol.ApprovalRequested:
		s := fmt.Sprintf("approval %s asked: %s wants to run", e.ID, e.ToolName)
		if e.Body != nil {
			s += " " + strings.Join(strings.Fields(*e.Body), " ")
		}
		return s + " — " + e.Detail
	case protocol.ApprovalResolved:
		s := fmt.Sprintf("approval %s: %s", e.ID, strings.ReplaceAll(e.Outcome, "_", " "))
		if e.Reason != "" {
			s += " — " + e.Reason
		}
		return s
	}
	return ""
}
