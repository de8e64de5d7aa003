package session

import (
	"testing"

	"github.com/openseek/openseek/protocol"
)

func TestGoal(t *testing.T) {
	n := func(c string) Item { return &Notice{Content: c} }
	tests := []struct {
		name  string
		items []Item
		want  Goal
		ok    bool
	}{
		{"none", []Item{&User{Content: protocol.Text("hi")}}, Goal{}, false},
		{"set", []Item{n("[goal]\nship v1\nwith docs")}, Goal{Text: "ship v1\nwith docs", SetSequence: 1}, true},
		{"answered", []Item{n("[goal]\nx"), &Assistant{}}, Goal{Text: "x", SetSequence: 1, AnsweredSinceSet: true}, true},
		{"terminal answers", []Item{n("[goal]\nx"), &Terminal{Kind: Finished, Message: "m"}}, Goal{Text: "x", SetSequence: 1, AnsweredSinceSet: true}, true},
		{"answer before set does not count", []Item{&Assistant{}, n("[goal]\nx")}, Goal{Text: "x", SetSequence: 2}, true},
		{"cleared", []Item{n("[goal]\nx"), n("[goal cleared]")}, Goal{}, false},
		{"set after clear", []Item{n("[goal]\nx"), n("[goal cleared]"), n("[goal]\ny")}, Goal{Text: "y", SetSequence: 3}, true},
		{"blocked", []Item{n("[goal]\nx"), n("[goal blocked]\nneeds a key")}, Goal{Text: "x", SetSequence: 1, Blocked: true, BlockReason: "needs a key"}, true},
		{"unblocked wins when newer", []Item{n("[goal]\nx"), n("[goal blocked]\nr"), n("[goal unblocked]")}, Goal{Text: "x", SetSequence: 1}, true},
		{"block newer than unblock", []Item{n("[goal]\nx"), n("[goal unblocked]"), n("[goal blocked]\nr2")}, Goal{Text: "x", SetSequence: 1, Blocked: true, BlockReason: "r2"}, true},
		{"block of an older goal ignored", []Item{n("[goal]\nold"), n("[goal blocked]\nr"), n("[goal]\nnew")}, Goal{Text: "new", SetSequence: 3}, true},
		{"covered by summary counts as answered", []Item{n("[goal]\nx"), &Summary{Content: "s", From: 1, To: 1}}, Goal{Text: "x", SetSequence: 1, AnsweredSinceSet: true}, true},
		{"reminders are not markers", []Item{n("[goal]\nx"), n("[goal reminder] keep at it"), n("[goal check] done?")}, Goal{Text: "x", SetSequence: 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := seqd(tt.items...).Goal()
			if got != tt.want || ok != tt.ok {
				t.Fatalf("Goal() = %+v,%v want %+v,%v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestGoalBaseline(t *testing.T) {
	n := func(c string) Item { return &Notice{Content: c} }
	tests := []struct {
		name  string
		items []Item
		want  Baseline
		ok    bool
	}{
		{"present", []Item{n("[goal baseline] sha=abc123 dirty=true"), n("[goal]\nx")}, Baseline{SHA: "abc123", Dirty: true}, true},
		{"clean", []Item{n("[goal baseline] sha=abc dirty=false"), n("[goal]\nx")}, Baseline{SHA: "abc"}, true},
		{"not immediately before", []Item{n("[goal baseline] sha=abc dirty=false"), &User{}, n("[goal]\nx")}, Baseline{}, false},
		{"empty sha", []Item{n("[goal baseline] sha= dirty=false"), n("[goal]\nx")}, Baseline{}, false},
		{"bad flag", []Item{n("[goal baseline] sha=abc dirty=maybe"), n("[goal]\nx")}, Baseline{}, false},
		{"no goal", []Item{n("[goal baseline] sha=abc dirty=false")}, Baseline{}, false},
	}
	for _, tt := range tests {
		got, ok := seqd(tt.items...).GoalBaseline()
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %+v,%v", tt.name, got, ok)
		}
	}
}
