package protocol

// Approval events (reference §5.2).

// Approval outcomes seen on the wire; clients keep the field an open string.
const (
	ApprovalAllowedOnce = "allowed_once"
	ApprovalRejected    = "rejected"
	ApprovalCancelled   = "cancelled"
)

// ApprovalRequested blocks a tool until an approval command with this ID
// arrives. Detail says what would be granted; Body (nil → null) is what
// would actually run.
type ApprovalRequested struct {
	ID, ToolName, Detail string
	Body                 *string
}

// ApprovalResolved reports how an approval request ended.
type ApprovalResolved struct{ ID, Outcome string }

func (ApprovalRequested) EventName() string { return "approval_requested" }
func (ApprovalResolved) EventName() string  { return "approval_resolved" }

func (e ApprovalRequested) appendFields(b []byte) []byte {
	b = appendStrField(b, "id", e.ID)
	b = appendStrField(b, "tool_name", e.ToolName)
	b = appendStrField(b, "detail", e.Detail)
	return appendOptStrField(b, "body", e.Body)
}

func (e ApprovalResolved) appendFields(b []byte) []byte {
	b = appendStrField(b, "id", e.ID)
	return appendStrField(b, "outcome", e.Outcome)
}

func parseApprovalEvent(name string, f *fields) Event {
	switch name {
	case "approval_requested":
		return ApprovalRequested{ID: f.str("id"), ToolName: f.str("tool_name"), Detail: f.str("detail"), Body: f.optStr("body")}
	case "approval_resolved":
		return ApprovalResolved{ID: f.str("id"), Outcome: f.str("outcome")}
	}
	return nil
}
