package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/engine/runtime"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

func newHost(t *testing.T, srv *llmtest.Server, mod func(*Options)) *Host {
	t.Helper()
	o := Options{
		Dir: t.TempDir(), Home: t.TempDir(), Model: "test-model", APIURL: srv.URL(), NoSandbox: true,
		Retry:  llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond},
		Getenv: func(string) string { return "" },
	}
	if mod != nil {
		mod(&o)
	}
	h, err := NewHost(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// collect reads a subscription until the turn's summary arrives.
func collect(t *testing.T, s *Subscription) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var names []string
	for {
		batch, err := s.Next(ctx, 0)
		if err != nil {
			t.Fatalf("after %v: %v", names, err)
		}
		for _, e := range batch {
			names = append(names, e.Event.EventName())
			if e.Event.EventName() == "turn_summary" {
				return names
			}
		}
	}
}

// Two clients watch one session: both see the same stream, and opening
// the session again returns the same engine.
func TestSessionManyClientsOneStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"echo hi"}`}), llmtest.Text("done"))
	h := newHost(t, srv, nil)
	s, err := h.Open(context.Background(), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.Open(context.Background(), OpenOptions{ID: s.ID()})
	if err != nil || again != s {
		t.Fatalf("reopening an open session gave another engine: %v", err)
	}
	a, b := s.Subscribe(0), s.Subscribe(0)
	defer a.Close()
	defer b.Close()
	if err := s.Apply(protocol.PromptCmd{Content: protocol.Text("go")}); err != nil {
		t.Fatal(err)
	}
	ga, gb := strings.Join(collect(t, a), " "), strings.Join(collect(t, b), " ")
	if ga != gb {
		t.Errorf("clients saw different streams:\n%s\n%s", ga, gb)
	}
	want := "session_started agent_step usage context_health tool_started tool_result agent_step assistant_delta assistant_message usage context_health agent_finished turn_summary"
	if ga != want {
		t.Errorf("stream\n got %s\nwant %s", ga, want)
	}
	if snap := s.Snapshot(); snap.LastSequence() == 0 {
		t.Error("nothing was recorded")
	}
}

// Commands a session refuses come back as errors and change nothing.
func TestSessionApplyRefusals(t *testing.T) {
	srv := llmtest.NewServer(t)
	h := newHost(t, srv, nil)
	s, err := h.Open(context.Background(), OpenOptions{NoSession: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Apply(protocol.ApprovalCmd{ID: "ap-9", Allow: true}); err == nil || !strings.Contains(err.Error(), "ap-9") {
		t.Errorf("approval of an unknown id: %v", err)
	}
	if err := s.Apply(protocol.GoalCmd{Action: "set", Text: "  "}); !errors.Is(err, runtime.ErrBlankGoal) {
		t.Errorf("blank goal: %v", err)
	}
	sub := s.Subscribe(s.Hub().Head())
	defer sub.Close()
	if err := s.Apply(protocol.SteerCmd{Kind: "prompt", Content: protocol.Text("late")}); err != nil {
		t.Fatal(err)
	}
	got, _ := sub.Next(context.Background(), 0)
	if len(got) != 1 || got[0].Event.EventName() != "steer_dropped" {
		t.Errorf("idle steer: %v", got)
	}
}

// With --approval ask, the first answer to an approval wins; a second
// client's answer is refused with a clear error.
func TestSessionFirstApprovalWins(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"touch x"}`}), llmtest.Text("done"))
	h := newHost(t, srv, func(o *Options) { o.Approval = "ask" })
	s, err := h.Open(context.Background(), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe(0)
	defer sub.Close()
	s.Apply(protocol.PromptCmd{Content: protocol.Text("go")})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var id string
	for id == "" {
		batch, err := sub.Next(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range batch {
			if r, ok := e.Event.(protocol.ApprovalRequested); ok {
				id = r.ID
			}
		}
	}
	if err := s.Apply(protocol.ApprovalCmd{ID: id, Allow: true}); err != nil {
		t.Fatalf("first answer: %v", err)
	}
	if err := s.Apply(protocol.ApprovalCmd{ID: id, Allow: false}); err == nil {
		t.Error("a second answer to the same approval was accepted")
	}
	s.Drain()
}

// A cancelled host start-up context ends the key command it runs.
func TestHostResolveHonoursContext(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[providers.slow]\nbase_url = \"http://127.0.0.1:1/v1\"\napi_key_command = \"sleep 30\"\n"), 0o644)
	h, err := NewHost(context.Background(), Options{Dir: t.TempDir(), Home: home, Model: "slow/m", Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := h.ResolveModel(ctx); err == nil || !strings.Contains(err.Error(), "api_key_command") {
		t.Fatalf("a cancelled key command: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the key command outlived its context: %v", d)
	}
}

// Opening a session on a host that is shutting down is refused (it used
// to deadlock: the new session's Close needed the lock Open held).
func TestHostOpenAfterClose(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	h.Close()
	done := make(chan error, 1)
	go func() {
		_, err := h.Open(context.Background(), OpenOptions{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrHostClosed) {
			t.Errorf("open after close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open on a closed host hangs")
	}
}
