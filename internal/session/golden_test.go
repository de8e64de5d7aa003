package session

import (
	"bytes"
	"os"

	"reflect"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

const goldenPath = "testdata/session-v1.jsonl"

// newTestStore is a store in a temp dir whose clock ticks one second per
// append from a fixed instant.
func newTestStore(t testing.TB) *Store {
	t.Helper()
	s := NewStore(t.TempDir())
	at := time.UnixMilli(1758800000000)
	s.now = func() time.Time { at = at.Add(time.Second); return at }
	return s
}

// installGolden copies the frozen v1 file into s as session "legacy".
func installGolden(t testing.TB, s *Store) []byte {
	t.Helper()
	data, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.Dir("legacy"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path("legacy"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return data
}

func ptr[T any](v T) *T { return &v }

func TestGoldenLoad(t *testing.T) {
	s := newTestStore(t)
	installGolden(t, s)
	sess, err := s.Load("legacy")
	if err != nil {
		t.Fatal(err)
	}
	if sess.ID != "legacy" || sess.SystemPrompt != "You are a test agent." || len(sess.Events) != 18 {
		t.Fatalf("header: id %q prompt %q events %d", sess.ID, sess.SystemPrompt, len(sess.Events))
	}
	if sess.NeedsTailRepair() {
		t.Error("golden file flagged for tail repair")
	}
	for i, e := range sess.Events {
		if e.Sequence != i+1 || e.TS != 1758700001000+int64(i)*1000 {
			t.Errorf("event %d: sequence %d ts %d", i, e.Sequence, e.TS)
		}
	}
	want := map[int]Item{
		1:  &User{Content: protocol.Text("read the readme"), SubmissionID: ptr("sub-1")},
		2:  &Notice{Content: "[plan reminder] keep going"},
		3:  &Assistant{ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "read", Arguments: `{"path":"README.md"}`}}, Reasoning: ptr("look first")},
		4:  &ToolResult{ToolCallID: "call_1", ToolName: "read", Content: protocol.Text("# Title"), Brief: ptr("1 line"), Data: []byte(`{"lines":1}`)},
		5:  &ToolResult{ToolCallID: "call_2", ToolName: "read", Content: protocol.Text("no such file"), IsError: true},
		6:  &Assistant{Content: "The readme has a title.", ToolCalls: []chat.ToolCall{}},
		7:  &Terminal{Kind: Finished, Message: "The readme has a title."},
		9:  &Summary{Content: "read the readme; it has a title", From: 1, To: 7},
		10: &Terminal{Kind: ContextYield, Message: "[context ceiling] This turn reached the model's context window and was checkpointed.", Legacy: true},
		12: &Terminal{Kind: MaxStepsExhausted, Legacy: true},
		14: &Terminal{Kind: Failed, Message: "agent failed: boom"},
		16: &Terminal{Kind: Aborted, Message: "user asked to stop"},
		18: &Terminal{Kind: Interrupted, Message: "cancelled"},
	}
	for seq, item := range want {
		if got := sess.Events[seq-1].Item; !reflect.DeepEqual(got, item) {
			t.Errorf("event %d = %#v, want %#v", seq, got, item)
		}
	}
	if term, ok := sess.LastTerminal(); !ok || term.Kind != Interrupted {
		t.Errorf("LastTerminal = %v, %v", term, ok)
	}
}

func TestGoldenRewriteIsByteIdentical(t *testing.T) {
	s := newTestStore(t)
	data := installGolden(t, s)
	sess, err := s.Load("legacy")
	if err != nil {
		t.Fatal(err)
	}
	if got := encodeFile(sess); !bytes.Equal(got, data) {
		t.Fatalf("re-encoded file differs:\n%s\nwant:\n%s", got, data)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))[1:]
	for i, line := range lines {
		e, err := ParseEvent(line)
		if err != nil {
			t.Fatalf("line %d: %v", i+2, err)
		}
		if got := MarshalEvent(e); !bytes.Equal(got, line) {
			t.Errorf("line %d: MarshalEvent = %s, want %s", i+2, got, line)
		}
	}
}

func TestGoldenAppendKeepsExistingBytes(t *testing.T) {
	s := newTestStore(t)
	data := installGolden(t, s)
	w, err := s.OpenWriter("legacy", "ignored: the header wins", "openseek run")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got := w.Session().SystemPrompt; got != "You are a test agent." {
		t.Errorf("system prompt = %q", got)
	}
	ev, err := w.Append(&User{Content: protocol.Text("next")})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Sequence != 19 {
		t.Errorf("sequence = %d, want 19", ev.Sequence)
	}
	after, err := os.ReadFile(s.Path("legacy"))
	if err != nil {
		t.Fatal(err)
	}
	// The clock ticked once for the lease, once for the append.
	wantTail := `{"sequence":19,"ts":1758800002000,"item":{"kind":"user","payload":{"content":"next"}}}` + "\n"
	if !bytes.Equal(after, append(data, wantTail...)) {
		t.Fatalf("file after append:\n%s", after)
	}
}

func TestGoldenProjection(t *testing.T) {
	s := newTestStore(t)
	installGolden(t, s)
	sess, err := s.Load("legacy")
	if err != nil {
		t.Fatal(err)
	}
	text := func(r chat.Role, s string) chat.Message { return chat.Message{Role: r, Content: protocol.Text(s)} }
	want := []chat.Message{
		text(chat.System, "You are a test agent."),
		text(chat.User, "[conversation summary]\nsource_events=1..7\nread the readme; it has a title"),
		text(chat.User, "now do the big task"),
		text(chat.User, "continue"),
		text(chat.Assistant, "[agent failed]\nmax steps exhausted"),
		text(chat.User, "again"),
		text(chat.Assistant, "[agent failed]\nagent failed: boom"),
		text(chat.User, "stop it"),
		text(chat.Assistant, "[agent aborted]\nuser asked to stop"),
		text(chat.User, "one more"),
		text(chat.Assistant, "[agent interrupted]\ncancelled"),
	}
	if got := sess.Messages(); !reflect.DeepEqual(got, want) {
		t.Fatalf("projection:\n%#v\nwant:\n%#v", got, want)
	}
}
