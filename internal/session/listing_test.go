package session

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/protocol"
)

func setMtime(t *testing.T, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func TestListAndLatest(t *testing.T) {
	s := newTestStore(t)
	if ls, err := s.List(); err != nil || len(ls) != 0 {
		t.Fatalf("empty store: %v %v", ls, err)
	}
	if _, err := s.Latest(); err == nil {
		t.Fatal("Latest on an empty store succeeded")
	}
	base := time.Unix(1758700000, 0)
	hdrOf := func(id string) string { return `{"version":1,"id":"` + id + `","system_prompt":"s"}` + "\n" }
	notice := `{"sequence":1,"ts":1,"item":{"kind":"runtime_notice","payload":{"content":"n"}}}` + "\n"
	user := func(seq int, text string) string {
		return `{"sequence":` + string(rune('0'+seq)) + `,"ts":1,"item":{"kind":"user","payload":{"content":` + text + `}}}` + "\n"
	}
	writeSession(t, s, "old", hdrOf("old")+user(1, `"first old"`))
	writeSession(t, s, "mid", hdrOf("mid")+notice+user(2, `[{"type":"text","text":"parts "},{"type":"text","text":"joined"}]`))
	writeSession(t, s, "new-broken", `{"version":2,"id":"new-broken","system_prompt":"s"}`+"\n")
	if err := os.MkdirAll(s.Dir("legacy-layout"), 0o700); err != nil {
		t.Fatal(err)
	}
	setMtime(t, s.Path("old"), base)
	setMtime(t, s.Path("mid"), base.Add(time.Second+500*time.Millisecond))
	setMtime(t, s.Path("new-broken"), base.Add(time.Hour))
	if err := s.SetTitle("mid", "  My title \n"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Root(), "sessions", "stray-file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}

	ls, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	want := []Listing{
		{ID: "new-broken", UpdatedAt: base.Add(time.Hour), HasTime: true},
		{ID: "mid", Title: "My title", FirstPrompt: "parts joined", UpdatedAt: base.Add(1500 * time.Millisecond), HasTime: true},
		{ID: "old", FirstPrompt: "first old", UpdatedAt: base, HasTime: true},
		{ID: "legacy-layout"},
	}
	for i := range ls {
		ls[i].UpdatedAt = ls[i].UpdatedAt.Truncate(time.Millisecond)
		if !ls[i].HasTime {
			ls[i].UpdatedAt = time.Time{}
		}
	}
	for i := range want {
		if want[i].HasTime {
			want[i].UpdatedAt = want[i].UpdatedAt.Local()
		}
	}
	if len(ls) != len(want) {
		t.Fatalf("List = %+v", ls)
	}
	for i := range want {
		if ls[i].ID != want[i].ID || ls[i].Title != want[i].Title || ls[i].FirstPrompt != want[i].FirstPrompt ||
			ls[i].HasTime != want[i].HasTime || !ls[i].UpdatedAt.Equal(want[i].UpdatedAt) {
			t.Errorf("List[%d] = %+v, want %+v", i, ls[i], want[i])
		}
	}
	// The newest file does not load, so Latest skips it.
	if id, err := s.Latest(); err != nil || id != "mid" {
		t.Fatalf("Latest = %q, %v", id, err)
	}
}

func TestFirstPromptScanLimit(t *testing.T) {
	s := newTestStore(t)
	var b strings.Builder
	b.WriteString(`{"version":1,"id":"long","system_prompt":"s"}` + "\n")
	for i := 1; i <= 50; i++ {
		b.WriteString(string(MarshalEvent(Event{Sequence: i, Item: &Notice{Content: strings.Repeat("x", 70000)}})) + "\n")
	}
	b.WriteString(string(MarshalEvent(Event{Sequence: 51, Item: &User{Content: protocol.Text("too late")}})))
	writeSession(t, s, "long", b.String())
	ls, err := s.List()
	if err != nil || len(ls) != 1 || ls[0].FirstPrompt != "" {
		t.Fatalf("prompt past line 50 was used: %+v %v", ls, err)
	}
}

func TestSetTitle(t *testing.T) {
	s := newTestStore(t)
	tests := []struct{ id, title, err string }{
		{"missing", "t", "session missing does not exist"},
		{"s1", "   ", "session title must not be blank"},
		{"a/b", "t", "session id must not contain path separators: a/b"},
	}
	writeSession(t, s, "s1", hdr)
	for _, tt := range tests {
		if err := s.SetTitle(tt.id, tt.title); err == nil || err.Error() != tt.err {
			t.Errorf("SetTitle(%q,%q) = %v, want %q", tt.id, tt.title, err, tt.err)
		}
	}
	if err := s.SetTitle("s1", "Title"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(s.Dir("s1"), "session-title")); got != "Title" {
		t.Fatalf("title file %q", got)
	}
	ls, _ := s.List()
	if !reflect.DeepEqual([]string{ls[0].ID, ls[0].Title}, []string{"s1", "Title"}) {
		t.Fatalf("listing %+v", ls)
	}
}
