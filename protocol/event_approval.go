package protocol

import "strings"

// Approval events (reference §5.2).

// Approval outcomes seen on the wire; clients keep the field an open string.
const (
	ApprovalAllowedOnce = "allowed_once"
	ApprovalRejected    = "rejected"
	ApprovalCancelled   = "cancelled"
)

// ApprovalRequested blocks a tool until an approval command with this ID
// arrives. Detail says what would be granted; Body (nil → null) is what
// would actually run. Prefixes (an OpenSeek extension, written only when
// there are some) are the command prefixes ("git push", "npm install")
// that approving with "remember": true allows for the rest of the session.
type ApprovalRequested struct {
	ID, ToolName, Detail string
	Body                 *string
	Prefixes             []string `wire:",omitempty"`
}

// ApprovalResolved reports how an approval request ended. Reason (an
// OpenSeek extension, written only when set) is the user's word on a
// rejection, passed on to the model.
type ApprovalResolved struct {
	ID, Outcome string
	Reason      string `wire:",omitempty"`
}

// Covers names the prefixes in words for a dialog: "`git push`",
// "`git push` and `curl`" ("" when there are none).
func (e ApprovalRequested) Covers() string {
	q := make([]string, len(e.Prefixes))
	for i, p := range e.Prefixes {
		q[i] = "`" + p + "`"
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
