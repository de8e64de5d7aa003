package session

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/openseek/openseek/protocol"
)

const (
	hdr  = `{"version":1,"id":"s1","system_prompt":"sys"}` + "\n"
	ev1  = `{"sequence":1,"ts":1,"item":{"kind":"user","payload":{"content":"hi"}}}` + "\n"
	ev2  = `{"sequence":2,"ts":2,"item":{"kind":"assistant","payload":{"content":"hello","tool_calls":[]}}}` + "\n"
	torn = `{"sequence":3,"ts":3,"item":{"kind":"runtime_notice","pay`
)

func writeSession(t *testing.T, s *Store, id, content string) {
	t.Helper()
	if err := os.MkdirAll(s.Dir(id), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(id), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, content, err string
	}{
		{"not json", "{oops\n", "session file for s1 does not start with a header line: "},
		{"empty file", "", "session file for s1 does not start with a header line: "},
		{"version 2", `{"version":2,"id":"s1","system_prompt":"x"}` + "\n" + ev1, "session file for s1 uses unsupported session file version 2; this build reads version 1"},
		{"not a header", ev1, "session file for s1 does not start with a header record"},
		{"header id not a string", `{"version":1,"id":5,"system_prompt":"x"}` + "\n", "session file for s1 does not start with a header record"},
		{"id mismatch", `{"version":1,"id":"other","system_prompt":"x"}` + "\n", "session header id mismatch: requested s1, found other"},
		{"sequence gap", hdr + ev2, "session event log sequence mismatch: expected 1, found 2"},
		{"interior corruption", hdr + ev1 + "{garbage\n" + ev2, "session file for s1 is corrupt at line 3: "},
		{"bad terminated last line", hdr + ev1 + "{garbage\n", "session file for s1 is corrupt at line 3: "},
		{"unknown kind inside", hdr + `{"sequence":1,"ts":1,"item":{"kind":"mystery","payload":{}}}` + "\n", "unknown session item kind: mystery"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t)
			writeSession(t, s, "s1", tt.content)
			_, err := s.Load("s1")
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Load error = %v, want %q", err, tt.err)
			}
			if got := readFile(t, s.Path("s1")); got != tt.content {
				t.Fatalf("Load changed the file: %q", got)
			}
		})
	}
}

func TestLoadMissing(t *testing.T) {
	s := newTestStore(t)
	if _, err := s.Load("nope"); !errors.Is(err, fs.ErrNotExist) || err.Error() != "session nope does not exist" {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(s.Dir("nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("Load created the session directory")
	}
	if _, err := s.Load("../x"); err == nil || !strings.Contains(err.Error(), "path separators") {
		t.Fatalf("err = %v", err)
	}
}

func TestVersion2RefusedAndUntouched(t *testing.T) {
	s := newTestStore(t)
	content := `{"version":2,"id":"s1","system_prompt":"x"}` + "\n" + `{"whatever":true}`
	writeSession(t, s, "s1", content)
	want := "session file for s1 uses unsupported session file version 2; this build reads version 1"
	if _, err := s.Load("s1"); err == nil || err.Error() != want {
		t.Fatalf("Load: %v", err)
	}
	if _, err := s.OpenWriter("s1", "sys", "openseek run"); err == nil || err.Error() != want {
		t.Fatalf("OpenWriter: %v", err)
	}
	if got := readFile(t, s.Path("s1")); got != content {
		t.Fatalf("file changed: %q", got)
	}
	ents, _ := os.ReadDir(s.Dir("s1"))
	for _, e := range ents {
		if n := e.Name(); !strings.HasSuffix(s.Path("s1"), "/"+n) && !strings.HasSuffix(n, ".lock") {
			t.Fatalf("temp file left behind: %s", n)
		}
	}
	// The refused writer released its lease: a second attempt fails the
	// same way, not as busy.
	if _, err := s.OpenWriter("s1", "sys", "openseek run"); errors.Is(err, ErrBusy) {
		t.Fatalf("lease leaked: %v", err)
	}
}

func TestTornTailRecoveredAndRepaired(t *testing.T) {
	tests := []struct {
		name, content string
		events        int
		wantBefore    string // file content after repair, before the new event
	}{
		{"torn append dropped", hdr + ev1 + ev2 + torn, 2, hdr + ev1 + ev2},
		{"missing newline kept", hdr + ev1 + strings.TrimSuffix(ev2, "\n"), 2, hdr + ev1 + ev2},
		{"header only without newline", strings.TrimSuffix(hdr, "\n"), 0, hdr},
		{"torn after blank line", hdr + ev1 + "\n" + torn, 1, hdr + ev1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t)
			writeSession(t, s, "s1", tt.content)
			sess, err := s.Load("s1")
			if err != nil {
				t.Fatal(err)
			}
			if len(sess.Events) != tt.events || !sess.NeedsTailRepair() {
				t.Fatalf("events %d repair %v", len(sess.Events), sess.NeedsTailRepair())
			}
			if got := readFile(t, s.Path("s1")); got != tt.content {
				t.Fatal("Load repaired the file; only an append may")
			}
			w, err := s.OpenWriter("s1", "sys", "test")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			ev, err := w.Append(&Notice{Content: "after"})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.wantBefore + string(MarshalEvent(ev)) + "\n"
			if got := readFile(t, s.Path("s1")); got != want {
				t.Fatalf("after repair:\n%s\nwant:\n%s", got, want)
			}
			if ev.Sequence != tt.events+1 {
				t.Fatalf("sequence %d", ev.Sequence)
			}
			// The next append is a plain O_APPEND again.
			ev2, err := w.Append(&Notice{Content: "again"})
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, s.Path("s1")); got != want+string(MarshalEvent(ev2))+"\n" {
				t.Fatalf("second append: %s", got)
			}
		})
	}
}

func TestFirstAppendWritesHeaderAndEvent(t *testing.T) {
	s := newTestStore(t)
	w, err := s.OpenWriter("new", "be brief", "openseek run")
	if err != nil {
		t.Fatal(err)
	}
	if s.Exists("new") {
		t.Fatal("OpenWriter wrote the session file before any append")
	}
	ev, err := w.Append(&User{Content: protocol.Text("hello"), SubmissionID: ptr("sub-9")})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":1,"id":"new","system_prompt":"be brief"}` + "\n" +
		`{"sequence":1,"ts":1758800002000,"item":{"kind":"user","payload":{"content":"hello","submission_id":"sub-9"}}}` + "\n"
	if got := readFile(t, s.Path("new")); got != want || ev.TS != 1758800002000 {
		t.Fatalf("file:\n%s", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(&Notice{Content: "x"}); err == nil {
		t.Fatal("append after Close succeeded")
	}
	sess, err := s.Load("new")
	if err != nil || len(sess.Events) != 1 || sess.SystemPrompt != "be brief" {
		t.Fatalf("reload: %v %+v", err, sess)
	}
}

func TestUnwrittenSessionLeavesNothing(t *testing.T) {
	s := newTestStore(t)
	w, err := s.OpenWriter("ghost", "sys", "openseek run")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir("ghost")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("session dir left behind: %v", err)
	}
}

func TestStaleSnapshotRefused(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, s *Store)
		err    string
	}{
		{"another process appended", func(t *testing.T, s *Store) {
			f, err := os.OpenFile(s.Path("s1"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(`{"sequence":2,"ts":9,"item":{"kind":"runtime_notice","payload":{"content":"sneaky"}}}` + "\n"); err != nil {
				t.Fatal(err)
			}
		}, "stale session snapshot for s1"},
		{"file deleted", func(t *testing.T, s *Store) {
			if err := os.Remove(s.Path("s1")); err != nil {
				t.Fatal(err)
			}
		}, "leave .openseek/sessions alone while a session runs"},
		{"system prompt rewritten", func(t *testing.T, s *Store) {
			writeSession(t, s, "s1", `{"version":1,"id":"s1","system_prompt":"other"}`+"\n"+ev1)
		}, "stale session snapshot for s1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, w := openedSession(t)
			tt.tamper(t, s)
			before, _ := os.ReadFile(s.Path("s1"))
			_, err := w.Append(&Notice{Content: "mine"})
			if !errors.Is(err, ErrStale) || !strings.HasSuffix(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			after, _ := os.ReadFile(s.Path("s1"))
			if !bytes.Equal(before, after) {
				t.Fatal("refused append changed the file")
			}
		})
	}
}

func TestUnchangedFileAfterTouchStillAppends(t *testing.T) {
	s := newTestStore(t)
	writeSession(t, s, "s1", hdr+ev1)
	w, err := s.OpenWriter("s1", "sys", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Same bytes rewritten: the fingerprint changes, the full check passes.
	writeSession(t, s, "s1", hdr+ev1)
	if _, err := w.Append(&Notice{Content: "ok"}); err != nil {
		t.Fatal(err)
	}
}

func TestCompact(t *testing.T) {
	s := newTestStore(t)
	writeSession(t, s, "s1", hdr+ev1+ev2)
	w, err := s.OpenWriter("s1", "sys", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tests := []struct {
		content  string
		from, to int
		err      string
	}{
		{"  ", 1, 2, "summary content must not be empty"},
		{"s", 0, 2, "summary from_sequence must be positive"},
		{"s", 2, 1, "summary to_sequence must be >= from_sequence"},
		{"s", 1, 3, "summary range 1..3 exceeds last sequence 2"},
	}
	for _, tt := range tests {
		if _, err := w.Compact(tt.content, tt.from, tt.to); err == nil || !strings.HasSuffix(err.Error(), tt.err) {
			t.Errorf("Compact(%q,%d,%d) = %v, want %q", tt.content, tt.from, tt.to, err, tt.err)
		}
	}
	ev, err := w.Compact("greeted", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if sum, ok := ev.Item.(*Summary); !ok || ev.Sequence != 3 || sum.From != 1 || sum.To != 2 {
		t.Fatalf("event %+v", ev)
	}
	if got := readFile(t, s.Path("s1")); !strings.HasPrefix(got, hdr+ev1+ev2) {
		t.Fatal("compaction rewrote earlier lines")
	}
}

func TestAppendValidation(t *testing.T) {
	s := newTestStore(t)
	w, err := s.OpenWriter("s1", "sys", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tests := []struct {
		name string
		item Item
		err  string
	}{
		{"nil", nil, "must not be nil"},
		{"typed nil", (*User)(nil), "must not be nil"},
		{"image type mismatch", &User{Content: protocol.Content{{Type: "image", MediaType: "image/jpeg", Data: pngBytes}}}, "data is not a image/jpeg image"},
		{"unsupported image", &User{Content: protocol.Content{{Type: "image", MediaType: "image/bmp", Data: []byte("BM")}}}, "unsupported image type"},
		{"bad data", &ToolResult{ToolCallID: "c", ToolName: "t", Content: protocol.Text("x"), Data: []byte("{")}, "not valid JSON"},
		{"bad terminal", &Terminal{Kind: "weird"}, "unknown terminal kind"},
	}
	for _, tt := range tests {
		if _, err := w.Append(tt.item); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.err)
		}
	}
	// Multi-line data is compacted so the log stays one event per line;
	// the caller's item is left alone.
	data := []byte("{\n  \"b\": 1,\n  \"a\": 2\n}")
	tr := &ToolResult{ToolCallID: "c", ToolName: "t", Content: protocol.Text("x"), Data: data}
	ev, err := w.Append(tr)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(ev.Item.(*ToolResult).Data); got != `{"b":1,"a":2}` {
		t.Fatalf("stored data %s", got)
	}
	if string(tr.Data) != string(data) {
		t.Fatal("caller's item modified")
	}
}

// A deleted session file (or its whole directory) ends the writer: the
// append says which file went and what to do, every later append fails
// the same way without touching the disk, and no empty directory is made
// again.
func TestGoneSessionFile(t *testing.T) {
	for name, remove := range map[string]func(s *Store) error{
		"file":      func(s *Store) error { return os.Remove(s.Path("s1")) },
		"directory": func(s *Store) error { return os.RemoveAll(s.Dir("s1")) },
	} {
		t.Run(name, func(t *testing.T) {
			s, w := openedSession(t)
			if err := remove(s); err != nil {
				t.Fatal(err)
			}
			_, err := w.Append(&Notice{Content: "mine"})
			var gone *GoneError
			if !errors.As(err, &gone) || !errors.Is(err, ErrGone) || gone.Path != s.Path("s1") ||
				!strings.Contains(err.Error(), "was deleted while the session was running") || !strings.Contains(err.Error(), "start a new session") {
				t.Fatalf("err = %v, want a GoneError naming %s", err, s.Path("s1"))
			}
			if w.Err() != err {
				t.Errorf("Err() = %v, want the append's error", w.Err())
			}
			if name == "directory" {
				if _, err := os.Stat(s.Dir("s1")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the deleted directory was made again: %v", err)
				}
			}
			if _, again := w.Append(&Notice{Content: "again"}); again != err {
				t.Errorf("second append: %v, want the same error", again)
			}
			if _, err := os.Stat(s.Path("s1")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an append after the file went wrote one: %v", err)
			}
		})
	}
}

// openedSession is a store holding session s1 with one event, and its
// writer (closed at the end of the test).
func openedSession(t *testing.T) (*Store, *Writer) {
	t.Helper()
	s := newTestStore(t)
	writeSession(t, s, "s1", hdr+ev1)
	w, err := s.OpenWriter("s1", "sys", "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return s, w
}

func TestAppendAllWritesAllOrNothing(t *testing.T) {
	s := newTestStore(t)
	w, err := s.OpenWriter("batch", "sys", "openseek import")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// A summary may cover items of its own batch; a bad item refuses the
	// whole batch.
	if _, err := w.AppendAll(&User{Content: protocol.Text("a")}, &Summary{Content: "s", From: 1, To: 3}); err == nil {
		t.Fatal("a summary past the batch's end was accepted")
	}
	if s.Exists("batch") {
		t.Fatal("a refused batch wrote the session")
	}
	evs, err := w.AppendAll(&User{Content: protocol.Text("a")}, &Notice{Content: "n"}, &Summary{Content: "s", From: 1, To: 2})
	if err != nil || len(evs) != 3 || evs[2].Sequence != 3 {
		t.Fatalf("first batch: %v %+v", err, evs)
	}
	if _, err := w.AppendAll(&Notice{Content: "m"}, &Notice{Content: "o"}); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Load("batch")
	if err != nil || len(sess.Events) != 5 || sess.Events[4].Sequence != 5 || sess.Events[4].Item.(*Notice).Content != "o" {
		t.Fatalf("reload: %v %+v", err, sess)
	}
	if got := w.Session(); !sameEvents(got, sess) {
		t.Error("the writer's snapshot differs from the file")
	}
}
