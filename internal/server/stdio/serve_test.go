package stdio

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

type sink struct {
	mu  sync.Mutex
	evs []protocol.Event
}

func (s *sink) emit(e protocol.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evs = append(s.evs, e)
}

func (s *sink) names() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n []string
	for _, e := range s.evs {
		n = append(n, e.EventName())
	}
	return strings.Join(n, " ")
}

// sink is also the client's stdout: it parses the lines it is written.
func (s *sink) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if e, ok := protocol.ParseEvent([]byte(line)); ok {
			s.emit(e)
		}
	}
	return len(p), nil
}

func newSession(t *testing.T, srv *llmtest.Server) *engine.Session {
	t.Helper()
	h, err := engine.NewHost(context.Background(), engine.Options{Dir: t.TempDir(), Home: t.TempDir(), Model: "m", APIURL: srv.URL(),
		NoSandbox: true, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	s, err := h.Open(context.Background(), engine.OpenOptions{NoSession: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); h.Close() })
	return s
}

func TestOverlongLineIsSkippedAndServingGoesOn(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("still here"))
	out := &sink{}
	eng := newSession(t, srv)
	in := `{"command":"prompt","content":"` + strings.Repeat("x", MaxLine+10) + `"}` + "\n" +
		"\r\n   \n" + `{"command":"prompt","content":"hi"}`
	if err := Serve(context.Background(), eng, strings.NewReader(in), out); err != nil {
		t.Fatal(err)
	}
	if got := out.names(); got != "command_error agent_step assistant_delta assistant_message usage context_health agent_finished turn_summary" {
		t.Errorf("events %s", got)
	}
}

func TestSignalEndsServingWhileStdinStaysOpen(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Stall{After: 1})
	out := &sink{}
	eng := newSession(t, srv)
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- Serve(ctx, eng, r, out) }()
	io.WriteString(w, `{"command":"prompt","content":"hang"}`+"\n")
	for !strings.Contains(out.names(), "agent_step") {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancellation")
	}
	if !strings.Contains(out.names(), "agent_aborted") {
		t.Errorf("the running turn was not cancelled: %s", out.names())
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
