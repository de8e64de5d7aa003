package stdio

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

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

func newEngine(t *testing.T, srv *llmtest.Server, emit func(protocol.Event)) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.Options{Dir: t.TempDir(), Home: t.TempDir(), Model: "m", APIURL: srv.URL(),
		NoSandbox: true, NoSession: true, Getenv: func(string) string { return "" }, Emit: emit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestOverlongLineIsSkippedAndServingGoesOn(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("still here"))
	out := &sink{}
	eng := newEngine(t, srv, out.emit)
	in := `{"command":"prompt","content":"` + strings.Repeat("x", MaxLine+10) + `"}` + "\n" +
		"\r\n   \n" + `{"command":"prompt","content":"hi"}`
	if err := Serve(context.Background(), eng, strings.NewReader(in), out.emit); err != nil {
		t.Fatal(err)
	}
	if got := out.names(); got != "command_error agent_step assistant_delta assistant_message usage agent_finished" {
		t.Errorf("events %s", got)
	}
}

func TestSignalEndsServingWhileStdinStaysOpen(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Stall{After: 1})
	out := &sink{}
	eng := newEngine(t, srv, out.emit)
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- Serve(ctx, eng, r, out.emit) }()
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
