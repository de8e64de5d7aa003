package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

func realHost(t *testing.T, dir string, srv *llmtest.Server) *engine.Host {
	t.Helper()
	h, err := engine.NewHost(context.Background(), engine.Options{
		Dir: dir, Home: t.TempDir(), Model: "test-model", APIURL: srv.URL(), NoSandbox: true, Approval: "always",
		Retry:  llm.RetryPolicy{Attempts: 1, Base: time.Millisecond, Max: time.Millisecond},
		Getenv: func(string) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// run carries out cmd and the commands it leads to, reading events until
// the turn in progress has ended.
func run(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	if cmd != nil {
		m.Update(cmd()) // its follow-up is the event pump, run below
	}
	for m.busy {
		msg := m.pump()().(eventsMsg)
		if msg.err != nil {
			t.Fatalf("the turn never ended (%v):\n%s", msg.err, screen(m))
		}
		m.Update(msg)
	}
}

// The UI on the real in-process engine: a turn, /plan reopening the
// session in plan mode (the command is refused), and the history shown
// when the session is resumed.
func TestLocalBackend(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Text("Hello **world**, all fine."),
		llmtest.Reply{Reasoning: "try", Calls: []llmtest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"touch planned.txt"}`}}},
		llmtest.Text("I only planned."),
	)
	b := &Local{Host: realHost(t, dir, srv), Holder: "test"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := b.Open(ctx, OpenRequest{ID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	m := New(ctx, b, conn, Options{NoColor: true, Approval: "always"})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 40})
	press(m, "say hello", "enter")
	run(t, m, nil)
	if s := screen(m); !strings.Contains(s, "all fine.") || !strings.Contains(s, "— finished") {
		t.Fatalf("the answer is not on screen:\n%s", s)
	}
	cmd := m.slash("/plan")
	run(t, m, cmd)
	if m.mode != "plan" || m.conn.ID() != "s1" {
		t.Fatalf("after /plan: mode %q session %q", m.mode, m.conn.ID())
	}
	run(t, m, m.slash("/model test-model-2"))
	if m.model != "test-model-2" || m.mode != "plan" {
		t.Fatalf("after /model: model %q mode %q", m.model, m.mode)
	}
	press(m, "make a file", "enter")
	run(t, m, nil)
	if _, err := os.Stat(filepath.Join(dir, "planned.txt")); err == nil {
		t.Errorf("plan mode let the command write a file")
	}
	if m.replaying {
		t.Errorf("warnings stay hidden after the reopened session started")
	}
	if got := srv.Requests()[1].Model; got != "test-model-2" {
		t.Errorf("the turn after /model asked %q", got)
	}
	if s := screen(m); !strings.Contains(s, "I only planned.") {
		t.Errorf("second turn:\n%s", s)
	}
	m.Close()

	conn, err = b.Open(ctx, OpenRequest{ID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	m = New(ctx, b, conn, Options{NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 40})
	s := screen(m)
	for _, want := range []string{"› say hello", "all fine.", "› make a file", "touch planned.txt", "resumed session s1"} {
		if !strings.Contains(s, want) {
			t.Errorf("resumed screen lacks %q:\n%s", want, s)
		}
	}
	m.Close()
}

// /jobs output shows a background job's output text, read in process.
func TestJobsOutputShowsTheText(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "j", Name: "shell", Args: `{"cmd":"echo from-the-job; sleep 30","background":true}`}),
		llmtest.Text("started it"),
	)
	b := &Local{Host: realHost(t, dir, srv), Holder: "test"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := b.Open(ctx, OpenRequest{ID: "jobs"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	m := New(ctx, b, conn, Options{NoColor: true, Approval: "always"})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 40})
	press(m, "start a job", "enter")
	run(t, m, nil)
	lc := conn.(*localConn)
	jobs := lc.s.Engine().Jobs()
	if len(jobs) != 1 {
		t.Fatalf("jobs: %+v", jobs)
	}
	id := jobs[0].ID
	for deadline := time.Now().Add(10 * time.Second); ; {
		if out, _ := lc.JobOutput(id); strings.Contains(out, "from-the-job") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job never wrote its output")
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.slash("/jobs output " + id)
	msg := m.pump()().(eventsMsg)
	m.Update(msg)
	if s := screen(m); !strings.Contains(s, "from-the-job") {
		t.Errorf("/jobs output does not show the text:\n%s", s)
	}
}
