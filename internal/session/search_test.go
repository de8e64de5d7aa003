package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

// writeEvents writes session id with items as its events, the file's
// mtime set to mtime.
func writeEvents(t testing.TB, st *Store, id string, mtime time.Time, items ...Item) {
	t.Helper()
	sess := &Session{ID: id, SystemPrompt: "You are a coding agent. Mention Needle nowhere."}
	for i, it := range items {
		sess.Events = append(sess.Events, Event{Sequence: i + 1, TS: 1758700000000 + int64(i), Item: it})
	}
	if err := os.MkdirAll(st.Dir(id), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.Path(id), encodeFile(sess), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(st.Path(id), mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestSearch(t *testing.T) {
	st := NewStore(t.TempDir())
	base := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	long := strings.Repeat("word ", 30)
	writeEvents(t, st, "old", base,
		user("fix the parser"),
		&Assistant{ToolCalls: []chat.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"cmd":"go test"}`}}},
		&ToolResult{ToolCallID: "c1", ToolName: "shell", Content: protocol.Text(long + "\nPANIC: nil map\n" + long)},
		answer("done"), done("done"),
		user("and the flaky test?"), answer("The FLAKY test is fixed."), done("The FLAKY test is fixed."),
	)
	writeEvents(t, st, "new", base.Add(time.Hour),
		notice("[plan reminder] flaky things"), // notices are not searched
		user("Why is ümlaut-Flaky failing?"), answer("no idea"), done("no idea"),
	)
	writeEvents(t, st, "none", base.Add(2*time.Hour), user("nothing here"), answer("ok"), done("ok"))
	os.MkdirAll(st.Dir("broken"), 0o700)
	os.WriteFile(st.Path("broken"), []byte("not json\n{\"flaky\n"), 0o600)

	hits, skipped, err := st.Search(context.Background(), "flaky", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%s turn=%d seq=%d %s %q", h.Session, h.Turn, h.Sequence, h.Kind, h.Excerpt[h.Match[0]:h.Match[1]]))
	}
	want := []string{
		`new turn=1 seq=2 user "Flaky"`,
		`old turn=2 seq=6 user "flaky"`,
		`old turn=2 seq=7 assistant "FLAKY"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hits\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0].Error(), "broken") {
		t.Errorf("skipped %v, want the broken session", skipped)
	}
	if hits[0].UpdatedAtMS != base.Add(time.Hour).UnixMilli() || hits[0].TS != 1758700000001 {
		t.Errorf("times %d %d", hits[0].UpdatedAtMS, hits[0].TS)
	}

	// A long text is cut around the match, on one line.
	hits, _, _ = st.Search(context.Background(), "panic: NIL", 1)
	if len(hits) != 1 {
		t.Fatalf("%d hits for a tool result", len(hits))
	}
	h := hits[0]
	if h.Kind != "tool_result" || h.Excerpt[h.Match[0]:h.Match[1]] != "PANIC: nil" || strings.Contains(h.Excerpt, "\n") ||
		!strings.HasPrefix(h.Excerpt, "…") || !strings.HasSuffix(h.Excerpt, "…") || len(h.Excerpt) > 2*excerptContext+20 {
		t.Errorf("excerpt %q match %v", h.Excerpt, h.Match)
	}
	// A query that JSON escapes, and a non-ASCII one, are found all the same.
	for q, want := range map[string]string{`ümlaut-flaky`: "new", "\"quoted\"": "quoted"} {
		if q == "\"quoted\"" {
			writeEvents(t, st, "quoted", base, user(`say "Quoted" please`))
		}
		hits, _, _ = st.Search(context.Background(), q, 0)
		if len(hits) != 1 || hits[0].Session != want {
			t.Errorf("search %q: %+v", q, hits)
		}
	}
	// perSession caps each session's hits.
	if hits, _, _ = st.Search(context.Background(), "flaky", 1); len(hits) != 2 {
		t.Errorf("perSession=1: %d hits, want one per session", len(hits))
	}
	if _, _, err := st.Search(context.Background(), "  ", 0); err == nil {
		t.Error("a blank query was accepted")
	}
}

// BenchmarkSearch1000 searches 1,000 sessions of 200 events each (about
// 40 MB) for a string that ten of them hold.
func BenchmarkSearch1000(b *testing.B) {
	st := NewStore(b.TempDir())
	now := time.Now()
	for n := range 1000 {
		items := make([]Item, 200)
		for i := range items {
			items[i] = benchItems(i)
		}
		if n%100 == 0 {
			items[101] = user("where does the Zebra-Stripe come from?")
		}
		writeEvents(b, st, fmt.Sprintf("s%04d", n), now, items...)
	}
	b.ResetTimer()
	for b.Loop() {
		hits, _, err := st.Search(context.Background(), "zebra-stripe", 0)
		if err != nil || len(hits) != 10 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
	}
}
