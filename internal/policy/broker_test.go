package policy

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/protocol"
)

// events records what a broker emits and signals each approval_requested.
type events struct {
	mu        sync.Mutex
	got       []protocol.Event
	requested chan string
}

func newEvents() *events { return &events{requested: make(chan string, 16)} }

func (e *events) emit(ev protocol.Event) {
	e.mu.Lock()
	e.got = append(e.got, ev)
	e.mu.Unlock()
	if r, ok := ev.(protocol.ApprovalRequested); ok {
		e.requested <- r.ID
	}
}

func (e *events) list() []protocol.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protocol.Event(nil), e.got...)
}

type answer struct {
	ok  bool
	err error
}

// ask runs Broker.Ask in the background and returns the request id and
// where its answer will arrive.
func ask(t *testing.T, b *Broker, ev *events, ctx context.Context, pattern string) (string, chan answer) {
	t.Helper()
	out := make(chan answer, 1)
	go func() {
		a, err := b.Ask(ctx, Question{Tool: "shell", Detail: "run it", Body: "go test ./...", Patterns: pats(pattern)})
		out <- answer{a.Allow, err}
	}()
	select {
	case id := <-ev.requested:
		return id, out
	case <-time.After(5 * time.Second):
		t.Fatal("no approval_requested")
		return "", nil
	}
}

func pats(p string) []string { return strings.Split(p, "\n") }

func wait(t *testing.T, ch chan answer) answer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(5 * time.Second):
		t.Fatal("Ask did not return")
		return answer{}
	}
}

func TestBrokerRoundTrip(t *testing.T) {
	tests := []struct {
		name            string
		allow, remember bool
		outcome         string
		rememberedAfter bool
	}{
		{"allow once", true, false, protocol.ApprovalAllowedOnce, false},
		{"deny", false, false, protocol.ApprovalRejected, false},
		{"deny with remember", false, true, protocol.ApprovalRejected, false},
		{"allow for session", true, true, OutcomeAllowedForSession, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := newEvents()
			b := NewBroker(ev.emit)
			id, out := ask(t, b, ev, context.Background(), "go test")
			if id != "ap-1" {
				t.Errorf("id = %q, want ap-1", id)
			}
			if err := b.Resolve(id, Answer{Allow: tc.allow, Remember: tc.remember}); err != nil {
				t.Fatal(err)
			}
			if a := wait(t, out); a.ok != tc.allow || a.err != nil {
				t.Errorf("Ask = %v, %v; want %v", a.ok, a.err, tc.allow)
			}
			body := "go test ./..."
			want := []protocol.Event{
				protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "run it", Body: &body, Prefixes: []string{"go test"}},
				protocol.ApprovalResolved{ID: "ap-1", Outcome: tc.outcome},
			}
			if got := ev.list(); !reflect.DeepEqual(got, want) {
				t.Errorf("events = %#v, want %#v", got, want)
			}
			if b.Remembered(pats("go test"), false) != tc.rememberedAfter {
				t.Errorf("Remembered = %v", !tc.rememberedAfter)
			}
			if err := b.Resolve(id, Answer{Allow: true, Remember: false}); err == nil {
				t.Error("resolving twice succeeded")
			}
		})
	}
}

func TestBrokerRememberForSession(t *testing.T) {
	ev := newEvents()
	b := NewBroker(ev.emit)
	id, out := ask(t, b, ev, context.Background(), "go test\nrm")
	if err := b.Resolve(id, Answer{Allow: true, Remember: true}); err != nil {
		t.Fatal(err)
	}
	wait(t, out)
	n := len(ev.list())
	for _, p := range []string{"go test", "rm", "rm\ngo test"} {
		a, err := b.Ask(context.Background(), Question{Tool: "shell", Detail: "d", Patterns: pats(p)})
		if ok := a.Allow; !ok || err != nil {
			t.Errorf("remembered %q: Ask = %v, %v", p, ok, err)
		}
	}
	if len(ev.list()) != n {
		t.Errorf("a remembered pattern emitted events: %v", ev.list()[n:])
	}
	// A pattern not approved yet still asks, with the next id.
	id, out = ask(t, b, ev, context.Background(), "go test\ngo build")
	if id != "ap-2" {
		t.Errorf("id = %q, want ap-2", id)
	}
	b.Resolve(id, Answer{Allow: false, Remember: false})
	if a := wait(t, out); a.ok {
		t.Error("rejected request returned true")
	}
}

func TestBrokerUnknownID(t *testing.T) {
	ev := newEvents()
	b := NewBroker(ev.emit)
	id, out := ask(t, b, ev, context.Background(), "rm")
	err := b.Resolve("ap-9", Answer{Allow: true, Remember: true})
	if err == nil || err.Error() != "no approval request with id ap-9 is pending" {
		t.Fatalf("Resolve(ap-9) = %v", err)
	}
	if b.Remembered(pats("rm"), false) || !reflect.DeepEqual(b.Pending(), []string{id}) {
		t.Errorf("unknown id changed state: remembered=%v pending=%v", b.Remembered(pats("rm"), false), b.Pending())
	}
	b.Resolve(id, Answer{Allow: false, Remember: false})
	wait(t, out)
}

func TestBrokerCancel(t *testing.T) {
	ev := newEvents()
	b := NewBroker(ev.emit)
	id1, out1 := ask(t, b, ev, context.Background(), "a")
	id2, out2 := ask(t, b, ev, context.Background(), "b")
	if got := b.Pending(); !reflect.DeepEqual(got, []string{id1, id2}) {
		t.Fatalf("Pending = %v", got)
	}
	b.CancelAll()
	for _, out := range []chan answer{out1, out2} {
		if a := wait(t, out); a.ok || a.err != nil {
			t.Errorf("cancelled Ask = %v, %v", a.ok, a.err)
		}
	}
	got := ev.list()[2:]
	want := []protocol.Event{
		protocol.ApprovalResolved{ID: id1, Outcome: protocol.ApprovalCancelled},
		protocol.ApprovalResolved{ID: id2, Outcome: protocol.ApprovalCancelled},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	if len(b.Pending()) != 0 || b.Resolve(id1, Answer{Allow: true, Remember: false}) == nil {
		t.Error("a cancelled request is still pending")
	}
}

func TestBrokerContext(t *testing.T) {
	ev := newEvents()
	b := NewBroker(ev.emit)
	ctx, cancel := context.WithCancel(context.Background())
	id, out := ask(t, b, ev, ctx, "x")
	cancel()
	a := wait(t, out)
	if a.ok || a.err != context.Canceled {
		t.Errorf("Ask = %v, %v; want false, context.Canceled", a.ok, a.err)
	}
	last := ev.list()[len(ev.list())-1]
	if last != (protocol.ApprovalResolved{ID: id, Outcome: protocol.ApprovalCancelled}) {
		t.Errorf("last event = %#v", last)
	}
	if err := b.Resolve(id, Answer{Allow: true, Remember: false}); err == nil {
		t.Error("Resolve after the context ended succeeded")
	}
	// An already-ended context asks nothing.
	if a, err := b.Ask(ctx, Question{Tool: "shell", Detail: "d", Patterns: pats("y")}); a.Allow || err == nil {
		t.Errorf("Ask(ended ctx) = %v, %v", a.Allow, err)
	}
}
