package session

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

func user(s string) *User        { return &User{Content: protocol.Text(s)} }
func answer(s string) *Assistant { return &Assistant{Content: s, ToolCalls: []chat.ToolCall{}} }
func done(s string) *Terminal    { return &Terminal{Kind: Finished, Message: s} }
func notice(s string) *Notice    { return &Notice{Content: s} }

func TestTurns(t *testing.T) {
	tests := []struct {
		name string
		s    *Session
		want []Turn
	}{
		{"none", seqd(), nil},
		{"turns with snapshots; steering stays in its turn", seqd(
			notice(SnapshotMarker("aaaa")), // 1
			user("one"),                    // 2
			user("steer"),                  // 3: inside turn 1
			answer("a"), done("a"),         // 4, 5
			notice("[plan reminder] x"),    // 6
			notice(SnapshotMarker("bbbb")), // 7
			notice("job ended"),            // 8: a notice slipping in between
			user("two"),                    // 9
			answer("b"), done("b"),         // 10, 11
		), []Turn{
			{Number: 1, Sequence: 2, Start: 1, Snapshot: "aaaa", Prompt: "one"},
			{Number: 2, Sequence: 9, Start: 7, Snapshot: "bbbb", Prompt: "two"},
		}},
		{"snapshots before destructive commands belong to their turn", seqd(
			notice(SnapshotMarker("aaaa")), // 1
			user("one"),                    // 2
			notice(CommandSnapshotMarker("cccc", "`rm -rf src` deletes\nrecursively")), // 3
			answer("a"), done("a"), // 4, 5
		), []Turn{
			{Number: 1, Sequence: 2, Start: 1, Snapshot: "aaaa", Prompt: "one",
				Commands: []CommandSnapshot{{Snapshot: "cccc", Sequence: 3, What: "`rm -rf src` deletes recursively"}}},
		}},
		{"old turns without snapshots", seqd(
			user("one"), answer("a"), done("a"),
			user("two"), answer("b"), done("b"),
		), []Turn{
			{Number: 1, Sequence: 1, Start: 1, Prompt: "one"},
			{Number: 2, Sequence: 4, Start: 4, Prompt: "two"},
		}},
		{"a cut-off turn: the next snapshot starts a new one", seqd(
			notice(SnapshotMarker("aaaa")), user("one"), answer(""), // no terminal
			notice(SnapshotMarker("bbbb")), user("two"),
		), []Turn{
			{Number: 1, Sequence: 2, Start: 1, Snapshot: "aaaa", Prompt: "one"},
			{Number: 2, Sequence: 5, Start: 4, Snapshot: "bbbb", Prompt: "two"},
		}},
		{"a killed turn resumed: the deferred marker names the new prompt", seqd(
			user("one"),                          // 1
			notice(SnapshotMarkerFor("aaaa", 1)), // 2
			&Assistant{Content: "", ToolCalls: []chat.ToolCall{{ID: "c", Name: "shell", Arguments: "{}"}}}, // 3: killed here
			user("continue"),                     // 4
			notice(SnapshotMarkerFor("bbbb", 4)), // 5
			answer("done"), done("done"),         // 6, 7
		), []Turn{
			{Number: 1, Sequence: 1, Start: 1, Snapshot: "aaaa", Prompt: "one"},
			{Number: 2, Sequence: 4, Start: 4, Snapshot: "bbbb", Prompt: "continue"},
		}},
		{"a rewind closes a cut-off turn", seqd(
			user("one"), answer(""), notice(RewindMarker(1)), user("two"),
		), []Turn{
			{Number: 1, Sequence: 1, Start: 1, Prompt: "one"},
			{Number: 2, Sequence: 4, Start: 4, Prompt: "two"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.Turns(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestProjectionHonoursRewindsAndHidesMarkers(t *testing.T) {
	sys := msg(chat.System, "sys")
	tests := []struct {
		name string
		s    *Session
		want []chat.Message
	}{
		{"snapshot markers are not shown", seqd(
			notice(SnapshotMarker("aaaa")), user("one"), answer("a"), done("a"),
			notice("a job ended"),
		), []chat.Message{sys, msg(chat.User, "one"), msg(chat.Assistant, "a"), msg(chat.User, "a job ended")}},
		{"rewind to before turn 2", seqd(
			notice(SnapshotMarker("aaaa")), user("one"), answer("a"), done("a"), // 1-4
			notice(SnapshotMarker("bbbb")), user("two"), answer("b"), done("b"), // 5-8
			notice(RewindMarker(5)), // 9
			user("three"), answer("c"), done("c"),
		), []chat.Message{sys, msg(chat.User, "one"), msg(chat.Assistant, "a"),
			msg(chat.User, "three"), msg(chat.Assistant, "c")}},
		{"a rewound rewind is void: back to before turn 3 as it stood", seqd(
			user("one"), answer("a"), done("a"), // 1-3
			user("two"), answer("b"), done("b"), // 4-6
			user("three"), answer("c"), done("c"), // 7-9
			notice(RewindMarker(4)),              // 10: hides two, three
			user("four"), answer("d"), done("d"), // 11-13
			notice(RewindMarker(7)), // 14: before turn three: hides three..13, the first rewind included
		), []chat.Message{sys, msg(chat.User, "one"), msg(chat.Assistant, "a"),
			msg(chat.User, "two"), msg(chat.Assistant, "b")}},
		{"a summary made inside the rewound part neither covers nor shows", seqd(
			user("one"), answer("a"), done("a"), // 1-3
			user("two"), answer("b"), // 4-5
			&Summary{Content: "one and two", From: 1, To: 5}, // 6
			done("b"),               // 7
			notice(RewindMarker(4)), // 8
		), []chat.Message{sys, msg(chat.User, "one"), msg(chat.Assistant, "a")}},
		{"a later summary still starts where its range starts", seqd(
			user("one"), answer("a"), done("a"), // 1-3
			user("two"), answer("b"), done("b"), // 4-6
			notice(RewindMarker(4)), // 7
			user("three"),           // 8
			&Summary{Content: "one, three", From: 1, To: 8}, // 9
		), []chat.Message{sys, msg(chat.User, "[conversation summary]\nsource_events=1..8\none, three")}},
		{"malformed markers are plain notices", seqd(
			user("one"), notice("[rewind] from_sequence=x"), notice("[snapshot] commit="),
		), []chat.Message{sys, msg(chat.User, "one"), msg(chat.User, "[rewind] from_sequence=x"), msg(chat.User, "[snapshot] commit=")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.Messages(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// The markers are ordinary runtime notices on disk: each line
// round-trips byte for byte.
func TestMarkersRoundTrip(t *testing.T) {
	for _, it := range []Item{notice(SnapshotMarker("0123abcd")), notice(RewindMarker(12))} {
		line := MarshalEvent(Event{Sequence: 3, TS: 17, Item: it})
		ev, err := ParseEvent(line)
		if err != nil {
			t.Fatal(err)
		}
		if again := MarshalEvent(ev); !bytes.Equal(again, line) {
			t.Errorf("round trip changed the bytes:\n%s\n%s", line, again)
		}
		if !bytes.Contains(line, []byte(`{"kind":"runtime_notice","payload":{"content":"[`)) {
			t.Errorf("marker not written as a runtime notice: %s", line)
		}
	}
}

// TestCommandSnapshotIsAMarker: the snapshot before a destructive
// command is bookkeeping the model never sees, and starts no turn.
func TestCommandSnapshotIsAMarker(t *testing.T) {
	m := CommandSnapshotMarker("cccc", "`git clean -fdx` deletes untracked files")
	if !IsMarker(m) {
		t.Errorf("%q is not a marker", m)
	}
	if _, _, ok := parseSnapshot(m); ok {
		t.Errorf("%q reads as a turn's snapshot", m)
	}
	if IsMarker(CommandSnapshotPrefix) {
		t.Errorf("a marker without an id counts")
	}
}
