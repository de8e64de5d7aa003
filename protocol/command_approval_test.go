package protocol

import (
	"reflect"
	"testing"
)

// The optional "remember" key of the approval command: only a literal
// true sets it, and it is written only when set.
func TestApprovalRemember(t *testing.T) {
	tests := []struct {
		line    string
		want    ApprovalCmd
		emitted string // EmitCommand of want
	}{
		{`{"command":"approval","id":"ap-1","allow":true,"remember":true}`, ApprovalCmd{ID: "ap-1", Allow: true, Remember: true},
			`{"command":"approval","id":"ap-1","allow":true,"remember":true}`},
		{`{"command":"approval","id":"ap-1","allow":true,"remember":false}`, ApprovalCmd{ID: "ap-1", Allow: true},
			`{"command":"approval","id":"ap-1","allow":true}`},
		{`{"command":"approval","id":"ap-1","allow":true,"remember":"true"}`, ApprovalCmd{ID: "ap-1", Allow: true},
			`{"command":"approval","id":"ap-1","allow":true}`},
		{`{"command":"approval","id":"ap-1","allow":true,"remember":1}`, ApprovalCmd{ID: "ap-1", Allow: true},
			`{"command":"approval","id":"ap-1","allow":true}`},
		{`{"command":"approval","id":"ap-3","allow":false,"remember":true}`, ApprovalCmd{ID: "ap-3", Remember: true},
			`{"command":"approval","id":"ap-3","allow":false,"remember":true}`},
		{`{"command":"approval","id":"ap-4","allow":true}`, ApprovalCmd{ID: "ap-4", Allow: true},
			`{"command":"approval","id":"ap-4","allow":true}`},
		// the optional reason of a rejection, written only when set
		{`{"command":"approval","id":"ap-5","allow":false,"reason":"not on main"}`, ApprovalCmd{ID: "ap-5", Reason: "not on main"},
			`{"command":"approval","id":"ap-5","allow":false,"reason":"not on main"}`},
		{`{"command":"approval","id":"ap-5","allow":false,"reason":""}`, ApprovalCmd{ID: "ap-5"},
			`{"command":"approval","id":"ap-5","allow":false}`},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			got, err := ParseCommand([]byte(tc.line))
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseCommand = %#v, %v; want %#v", got, err, tc.want)
			}
			if e := string(EmitCommand(tc.want)); e != tc.emitted {
				t.Errorf("EmitCommand = %s; want %s", e, tc.emitted)
			}
			again, err := ParseCommand(EmitCommand(tc.want))
			if err != nil || !reflect.DeepEqual(again, tc.want) {
				t.Errorf("round trip = %#v, %v; want %#v", again, err, tc.want)
			}
		})
	}
}
