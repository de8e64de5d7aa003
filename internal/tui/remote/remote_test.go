package remote

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/tui"
	"github.com/openseek/openseek/protocol"
)

// contractServer is a test-only server speaking the HTTP API contract:
// bearer auth, sessions, snapshots with X-OpenSeek-Last-Event-ID, commands
// and an SSE event stream resumable by Last-Event-ID.
type contractServer struct {
	mu       sync.Mutex
	events   []string // protocol event lines; id = index+1
	commands []string
	lastIDs  []string // Last-Event-ID of each stream request
	drop     int      // streams to end after sending what there is
}

func (s *contractServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer tok" {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"missing or wrong token"}`)
		return
	}
	if r.Method == "POST" && r.Header.Get("Content-Type") != "application/json" {
		w.WriteHeader(http.StatusUnsupportedMediaType)
		io.WriteString(w, `{"error":"POST needs Content-Type: application/json"}`)
		return
	}
	switch {
	case r.Method == "GET" && r.URL.Path == "/v1/sessions":
		io.WriteString(w, `[{"id":"old","title":"x","updated_at_ms":1},{"id":"new1","title":null,"updated_at_ms":5}]`)
	case r.Method == "GET" && r.URL.Path == "/v1/models":
		io.WriteString(w, `[{"spec":"deepseek/deepseek-v4-flash","window":128000,"ready":true}]`)
	case r.Method == "GET" && r.URL.Path == "/v1/sessions/new1":
		w.Header().Set("X-OpenSeek-Last-Event-ID", "1")
		io.WriteString(w, `{"version":1,"id":"new1","system_prompt":"sys","events":[{"sequence":1,"ts":1,"item":{"kind":"user","payload":{"content":"hello"}}}]}`)
	case r.Method == "GET" && r.URL.Path == "/v1/sessions/missing":
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":"unknown session"}`)
	case r.Method == "POST" && r.URL.Path == "/v1/sessions":
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"made"}`)
	case r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/commands"):
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), `"approval"`) {
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, `{"error":"approval ap-1 was already answered"}`)
			return
		}
		s.mu.Lock()
		s.commands = append(s.commands, strings.TrimSpace(string(b)))
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"accepted":true}`)
	case r.Method == "GET" && strings.HasSuffix(r.URL.Path, "/events"):
		s.mu.Lock()
		s.lastIDs = append(s.lastIDs, r.Header.Get("Last-Event-ID"))
		var since int
		fmt.Sscan(r.Header.Get("Last-Event-ID"), &since)
		evs := append([]string(nil), s.events...)
		drop := s.drop > 0
		s.drop--
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		for i := since; i < len(evs); i++ {
			ev, _ := protocol.ParseEvent([]byte(evs[i]))
			fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", i+1, ev.EventName(), evs[i])
		}
		w.(http.Flusher).Flush()
		if drop {
			return
		}
		<-r.Context().Done()
	default:
		http.NotFound(w, r)
	}
}

func line(e protocol.Event) string { return strings.TrimSpace(string(protocol.Emit(e))) }

func collect(t *testing.T, c tui.Conn, n int) []protocol.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []protocol.Event
	for len(got) < n {
		evs, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("after %d events: %v", len(got), err)
		}
		got = append(got, evs...)
	}
	return got
}

func TestAttachReadsSnapshotEventsAndSendsCommands(t *testing.T) {
	cs := &contractServer{drop: 1, events: []string{
		line(protocol.SessionStarted{Session: "new1"}),
		line(protocol.AssistantDelta{Content: "hi"}),
		line(protocol.TurnSummary{Outcome: "finished"}),
	}}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	b, err := New(srv.URL+"/#token=tok", "")
	if err != nil {
		t.Fatal(err)
	}
	b.Backoff = time.Millisecond
	c, err := b.Open(context.Background(), tui.OpenRequest{ID: "new1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if h := c.History(); h == nil || len(h.Events) != 1 {
		t.Fatalf("history %+v", h)
	}
	if c.Model() != "deepseek/deepseek-v4-flash" || c.Window() != 128000 {
		t.Errorf("model %q window %d", c.Model(), c.Window())
	}
	// The first stream starts after the snapshot (id 1), ends, and the
	// reconnection resumes after the last id seen: nothing twice.
	got := collect(t, c, 4)
	var names []string
	for _, e := range got {
		names = append(names, e.EventName())
	}
	want := "assistant_delta turn_summary connection_lost connection_resumed"
	if strings.Join(names, " ") != want {
		t.Errorf("events %v, want %s", names, want)
	}
	cs.mu.Lock()
	ids := append([]string(nil), cs.lastIDs...)
	cs.mu.Unlock()
	if len(ids) < 2 || ids[0] != "1" || ids[1] != "3" {
		t.Errorf("Last-Event-ID of the streams: %v", ids)
	}
	if err := c.Apply(context.Background(), protocol.PromptCmd{Content: protocol.Text("go")}); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(context.Background(), protocol.ApprovalCmd{ID: "ap-1", Allow: true}); err == nil || !strings.Contains(err.Error(), "already answered") {
		t.Errorf("a refused command: %v", err)
	}
	if cs.commands[0] != `{"command":"prompt","content":"go"}` {
		t.Errorf("commands %q", cs.commands)
	}
}

func TestAttachErrors(t *testing.T) {
	srv := httptest.NewServer(&contractServer{})
	defer srv.Close()
	cases := []struct {
		name, url, want string
	}{
		{"no token", srv.URL, "needs the server's token"},
		{"not a url", "localhost:7878", "is not a server URL"},
	}
	for _, c := range cases {
		if _, err := New(c.url, ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	bad, _ := New(srv.URL+"/?token=wrong", "")
	if _, err := bad.Sessions(context.Background()); err == nil || !strings.Contains(err.Error(), "refused the token") {
		t.Errorf("wrong token: %v", err)
	}
	b, _ := New(srv.URL+"/?token=tok", "")
	list, err := b.Sessions(context.Background())
	if err != nil || list[0].ID != "new1" {
		t.Errorf("sessions newest first: %+v %v", list, err)
	}
	c, err := b.Open(context.Background(), tui.OpenRequest{ID: "missing"})
	if err != nil || c.ID() != "made" {
		t.Fatalf("an unknown id is created: %v", err)
	}
	c.Close()
	// A server that went away: reported with what to do, then the end.
	srv.Close()
	b.Retries, b.Backoff = 1, time.Millisecond
	gone, err := b.Open(context.Background(), tui.OpenRequest{ID: "new1"})
	if err == nil {
		gone.Close()
		t.Fatal("opening on a closed server succeeded")
	}
	if !strings.Contains(err.Error(), "is `openseek serve --http` still running?") {
		t.Errorf("lost server: %v", err)
	}
}
