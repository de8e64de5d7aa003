package session

import (
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
