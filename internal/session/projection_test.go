package session

import (
	"reflect"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

// seqd numbers items into a session.
func seqd(items ...Item) *Session {
	s := &Session{ID: "p", SystemPrompt: "sys"}
	for i, it := range items {
		s.Events = append(s.Events, Event{Sequence: i + 1, Item: it})
	}
	return s
}

func msg(r chat.Role, text string) chat.Message {
	return chat.Message{Role: r, Content: protocol.Text(text)}
}

func call(id, name string) chat.ToolCall { return chat.ToolCall{ID: id, Name: name, Arguments: "{}"} }

func toolMsg(id, text string) chat.Message {
	return chat.Message{Role: chat.Tool, ToolCallID: id, Content: protocol.Text(text)}
}

func result(id, text string) *ToolResult {
	return &ToolResult{ToolCallID: id, ToolName: "t", Content: protocol.Text(text)}
}

func TestMessages(t *testing.T) {
	sys := msg(chat.System, "sys")
	missingRead := "error: previous agent process exited before recording a result for tool read"
	tests := []struct {
		name string
		s    *Session
		want []chat.Message
	}{
		{"dangling call gets synthetic result before next user", seqd(
			&User{Content: protocol.Text("go")},
			&Assistant{ToolCalls: []chat.ToolCall{call("a", "read"), call("b", "shell")}},
			result("b", "ok"),
			&User{Content: protocol.Text("next")},
		), []chat.Message{sys, msg(chat.User, "go"),
			{Role: chat.Assistant, ToolCalls: []chat.ToolCall{call("a", "read"), call("b", "shell")}},
			toolMsg("b", "ok"), toolMsg("a", missingRead), msg(chat.User, "next")}},
		{"dangling at end flushed", seqd(
			&Assistant{ToolCalls: []chat.ToolCall{call("a", "read")}},
		), []chat.Message{sys, {Role: chat.Assistant, ToolCalls: []chat.ToolCall{call("a", "read")}}, toolMsg("a", missingRead)}},
		{"orphan and duplicate results dropped", seqd(
			result("zz", "orphan"),
			&Assistant{ToolCalls: []chat.ToolCall{call("a", "read")}},
			result("a", "first"),
			result("a", "again"),
		), []chat.Message{sys, {Role: chat.Assistant, ToolCalls: []chat.ToolCall{call("a", "read")}}, toolMsg("a", "first")}},
		{"final answer not repeated; reasoning kept", seqd(
			&Assistant{Content: "done", ToolCalls: []chat.ToolCall{}, Reasoning: ptr("think")},
			&Terminal{Kind: Finished, Message: "done"},
		), []chat.Message{sys, {Role: chat.Assistant, Content: protocol.Text("done"), Reasoning: ptr("think")}}},
		{"terminal status texts", seqd(
			&Terminal{Kind: Finished, Message: "answer"},
			&Terminal{Kind: Finished, Message: "  "},
			&Terminal{Kind: Finished, Message: "[context ceiling] x", Legacy: false},
			&Terminal{Kind: ContextYield, Message: "[context ceiling] y"},
			&Terminal{Kind: Aborted},
			&Terminal{Kind: Interrupted, Message: " "},
			&Terminal{Kind: Failed, Message: "boom"},
			&Terminal{Kind: MaxStepsExhausted},
		), []chat.Message{sys, msg(chat.Assistant, "answer"), msg(chat.Assistant, "[agent aborted]"),
			msg(chat.Assistant, "[agent interrupted]"), msg(chat.Assistant, "[agent failed]\nboom"),
			msg(chat.Assistant, "[agent failed]\nmax steps exhausted")}},
		{"notice is a user message", seqd(&Notice{Content: "[plan reminder] go"}),
			[]chat.Message{sys, msg(chat.User, "[plan reminder] go")}},
		{"summary emitted at range start, after later events", seqd(
			&User{Content: protocol.Text("old")},     // 1
			&Assistant{Content: "old answer"},        // 2
			&User{Content: protocol.Text("current")}, // 3
			&Summary{Content: "s12", From: 1, To: 2}, // 4
		), []chat.Message{sys, msg(chat.User, "[conversation summary]\nsource_events=1..2\ns12"), msg(chat.User, "current")}},
		{"summary covered by a later summary is not emitted", seqd(
			&User{Content: protocol.Text("a")},       // 1
			&Summary{Content: "s1", From: 1, To: 1},  // 2
			&User{Content: protocol.Text("b")},       // 3
			&Summary{Content: "s13", From: 1, To: 3}, // 4
			&User{Content: protocol.Text("c")},       // 5
		), []chat.Message{sys, msg(chat.User, "[conversation summary]\nsource_events=1..3\ns13"), msg(chat.User, "c")}},
		{"summary flushes pending calls first", seqd(
			&Assistant{ToolCalls: []chat.ToolCall{call("a", "read")}}, // 1
			&User{Content: protocol.Text("x")},                        // 2
			&Summary{Content: "s", From: 2, To: 2},                    // 3
		), []chat.Message{sys, {Role: chat.Assistant, ToolCalls: []chat.ToolCall{call("a", "read")}}, toolMsg("a", missingRead),
			msg(chat.User, "[conversation summary]\nsource_events=2..2\ns")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Messages(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got:\n%#v\nwant:\n%#v", got, tt.want)
			}
		})
	}
}

func TestCheckpointCut(t *testing.T) {
	s := seqd(
		&User{Content: protocol.Text("go")},                                       // 1 safe
		&Assistant{ToolCalls: []chat.ToolCall{call("a", "read"), call("b", "x")}}, // 2
		result("a", "ok"),      // 3
		result("zz", "orphan"), // 4
		result("b", "ok"),      // 5 safe
		&Assistant{ToolCalls: []chat.ToolCall{call("c", "read")}}, // 6 never answered
		&User{Content: protocol.Text("more")},                     // 7
	)
	tests := []struct {
		to, want int
		ok       bool
	}{{0, 0, false}, {1, 1, true}, {2, 1, true}, {4, 1, true}, {5, 5, true}, {7, 5, true}, {100, 5, true}}
	for _, tt := range tests {
		if got, ok := s.CheckpointCut(tt.to); got != tt.want || ok != tt.ok {
			t.Errorf("CheckpointCut(%d) = %d,%v want %d,%v", tt.to, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := seqd(&Assistant{ToolCalls: []chat.ToolCall{call("a", "r")}}).CheckpointCut(1); ok {
		t.Error("unanswered first batch reported safe")
	}
}

func TestLastTerminal(t *testing.T) {
	fin := &Terminal{Kind: Finished, Message: "x"}
	tests := []struct {
		name string
		s    *Session
		want *Terminal
	}{
		{"notice and summary after terminal", seqd(&User{}, fin, &Notice{Content: "n"}, &Summary{Content: "s", From: 1, To: 1}), fin},
		{"new turn opened", seqd(fin, &User{Content: protocol.Text("again")}), nil},
		{"cut off turn", seqd(&User{}, &Assistant{}), nil},
	}
	for _, tt := range tests {
		got, ok := tt.s.LastTerminal()
		if got != tt.want || ok != (tt.want != nil) {
			t.Errorf("%s: got %v,%v", tt.name, got, ok)
		}
	}
}

// longLog is a log of every kind of event the projection treats
// specially, in the order a long session might append them: prompts,
// calls answered out of order, dangling calls, orphan and duplicate
// results, notices and markers, terminals (a final answer, a context
// yield, failures), summaries (nested ones too) and rewinds.
func longLog() []Item {
	var items []Item
	add := func(it ...Item) { items = append(items, it...) }
	for round := 0; round < 6; round++ {
		id := func(s string) string { return s + string(rune('0'+round)) }
		add(&Notice{Content: SnapshotMarker("abc")},
			&User{Content: protocol.Text("task")},
			&Assistant{Reasoning: ptr("think"), ToolCalls: []chat.ToolCall{call(id("a"), "read"), call(id("b"), "shell")}},
			result(id("b"), "b first"),
			result(id("zz"), "orphan"),
			result(id("a"), "a"),
			result(id("a"), "duplicate"),
			&Notice{Content: "[plan reminder] go"},
			&Assistant{ToolCalls: []chat.ToolCall{call(id("c"), "read")}},
			&User{Content: protocol.Text("steer while c is dangling")},
			&Assistant{Content: "done"},
			&Terminal{Kind: Finished, Message: "done"},
		)
		n := len(items)
		switch round {
		case 1:
			add(&Summary{Content: "first half", From: 1, To: n / 2})
		case 2:
			add(&Notice{Content: RewindMarker(n - 5)}, &User{Content: protocol.Text("after the rewind")})
		case 3:
			add(&Assistant{ToolCalls: []chat.ToolCall{call(id("d"), "read")}}, &Terminal{Kind: ContextYield, Message: "[context ceiling] y"},
				&Summary{Content: "all", From: 1, To: n})
		case 4:
			add(&Terminal{Kind: Failed, Message: "boom"}, &Summary{Content: "inner", From: n - 3, To: n - 1})
		}
	}
	add(&Assistant{ToolCalls: []chat.ToolCall{call("e", "read"), call("f", "read")}}, result("f", "f"))
	return items
}

// TestProjectionMatchesMessages appends a long, varied log one event at a
// time and checks that the incremental projection is always exactly the
// projection made from scratch, that what it calls stable never changes
// until it reports a fresh projection, and that it makes one afresh only
// for summaries, rewinds and sessions that are not a continuation.
func TestProjectionMatchesMessages(t *testing.T) {
	items := longLog()
	var pr Projection
	var prev []chat.Message
	prevStable := 0
	s := &Session{ID: "p", SystemPrompt: "sys"}
	for i, it := range items {
		s = &Session{ID: s.ID, SystemPrompt: s.SystemPrompt, Events: append(s.Events, Event{Sequence: i + 1, Item: it})}
		got, stable, fresh := pr.Messages(s)
		if want := s.Messages(); !reflect.DeepEqual(got, want) {
			t.Fatalf("after event %d (%T): got\n%#v\nwant\n%#v", i+1, it, got, want)
		}
		if wantFresh := i == 0 || reprojects(it); fresh != wantFresh {
			t.Errorf("after event %d (%T): fresh = %v, want %v", i+1, it, fresh, wantFresh)
		}
		if !fresh && (stable < prevStable || !reflect.DeepEqual(got[:prevStable], prev[:prevStable])) {
			t.Fatalf("after event %d: the stable prefix of %d messages changed (now %d stable)", i+1, prevStable, stable)
		}
		if stable > len(got) {
			t.Fatalf("stable %d beyond %d messages", stable, len(got))
		}
		prev, prevStable = got, stable
	}

	// Sessions that do not continue the last one seen.
	other := seqd(items[:5]...)
	for _, s := range []*Session{other, seqd(items[:3]...), {ID: "p", SystemPrompt: "other", Events: other.Events}} {
		got, _, fresh := pr.Messages(s)
		if !fresh || !reflect.DeepEqual(got, s.Messages()) {
			t.Errorf("a session that is not a continuation: fresh %v, same as Messages %v", fresh, reflect.DeepEqual(got, s.Messages()))
		}
	}
}

// The network log is recorded mid-turn too, and shown by the views (it
// is no bookkeeping marker), never to the model.
func TestProjectionSkipsTheNetworkLog(t *testing.T) {
	line := NetworkPrefix + "github.com:443 allowed, 517 bytes sent, 5120 received"
	s := &Session{ID: "s", Events: []Event{
		{Sequence: 1, Item: &User{Content: protocol.Text("fetch")}},
		{Sequence: 2, Item: &Assistant{ToolCalls: []chat.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"cmd":"curl https://github.com"}`}}}},
		{Sequence: 3, Item: &Notice{Content: line}},
		{Sequence: 4, Item: &ToolResult{ToolCallID: "c1", ToolName: "shell", Content: protocol.Text("ok")}},
	}}
	msgs := s.Messages()
	if len(msgs) != 4 || msgs[3].Role != chat.Tool || msgs[3].ToolCallID != "c1" { // system, user, assistant, tool
		t.Fatalf("projection %+v", msgs)
	}
	if IsMarker(line) || !IsNetworkMarker(line) {
		t.Errorf("the network log is a marker the views hide, or not recognised")
	}
}

// Approval markers are recorded mid-turn, between a tool call and its
// result: the model never sees them and the call keeps its result.
func TestProjectionSkipsApprovalMarkers(t *testing.T) {
	body := "git push origin a"
	s := &Session{ID: "s", Events: []Event{
		{Sequence: 1, Item: &User{Content: protocol.Text("push it")}},
		{Sequence: 2, Item: &Assistant{ToolCalls: []chat.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"cmd":"git push origin a"}`}}}},
		{Sequence: 3, Item: &Notice{Content: ApprovalMarker(protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "network", Body: &body, Prefixes: []string{"git push"}})}},
		{Sequence: 4, Item: &Notice{Content: ApprovalMarker(protocol.ApprovalResolved{ID: "ap-1", Outcome: protocol.ApprovalRejected, Reason: "not today"})}},
		{Sequence: 5, Item: &ToolResult{ToolCallID: "c1", ToolName: "shell", Content: protocol.Text("refused")}},
	}}
	msgs := s.Messages()
	if len(msgs) != 4 || msgs[3].Role != chat.Tool || msgs[3].ToolCallID != "c1" { // system, user, assistant, tool
		t.Fatalf("projection %+v", msgs)
	}
	ev, ok := ParseApproval(s.Events[3].Item.(*Notice).Content)
	if !ok || ev != (protocol.ApprovalResolved{ID: "ap-1", Outcome: protocol.ApprovalRejected, Reason: "not today"}) {
		t.Errorf("ParseApproval = %#v, %v", ev, ok)
	}
	if _, ok := ParseApproval("[approval] not an event"); ok {
		t.Error("a notice that only looks like a marker parsed")
	}
}
