package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/llm/openai"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/internal/tool/control"
	"github.com/openseek/openseek/protocol"
)

// scriptedVerifier answers each check with the next verdict.
type scriptedVerifier struct {
	verdicts []Verdict
	turns    int
}

func (v *scriptedVerifier) BeginTurn(context.Context) func(context.Context) Verdict {
	v.turns++
	return func(context.Context) Verdict {
		next := v.verdicts[0]
		v.verdicts = v.verdicts[1:]
		return next
	}
}

// The check also guards answers given through finish, and a repair is a
// user message the next request carries.
func TestVerifierGuardsFinishAndPlainAnswers(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "1", Name: "finish", Args: `{"answer":"first try"}`}),
		llmtest.Text("second try"),
		llmtest.Text("third try"),
	)
	v := &scriptedVerifier{verdicts: []Verdict{
		{Note: "[verify] failed", Repair: "[verify] build broke: x.go:1"},
		{Note: "[verify] failed", Repair: "[verify] still broken"},
		{Note: "[verify] passed"},
	}}
	log := NewMemoryLog("t", "sys")
	p := llm.WithRetry(openai.New(openai.Config{URL: srv.URL()}), llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond})
	reg := tool.NewRegistry(control.Tools()...)
	a := New(Config{Provider: p, Model: "test", Tools: reg, Env: &tool.Env{Workspace: "/"}, Log: log, Backoff: time.Millisecond, Verify: v})
	out, err := a.Turn(context.Background(), protocol.Text("go"), nil)
	if err != nil || out.Kind != session.Finished || out.Answer != "third try" {
		t.Fatalf("%+v %v", out, err)
	}
	reqs := srv.Requests()
	if last := string(reqs[1].Messages[len(reqs[1].Messages)-1]); !strings.Contains(last, "build broke: x.go:1") || !strings.Contains(last, `"role":"user"`) {
		t.Errorf("repair message %s", last)
	}
	var notes int
	for _, ev := range log.Session().Events {
		if n, ok := ev.Item.(*session.Notice); ok && strings.HasPrefix(n.Content, "[verify]") {
			notes++
		}
	}
	if notes != 3 || v.turns != 1 {
		t.Errorf("%d notes, %d turns", notes, v.turns)
	}
}

func TestVerifierRejectEndsTheTurnFailed(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("done"))
	v := &scriptedVerifier{verdicts: []Verdict{{Note: "[verify] failed", Reject: "verification failed: nope"}}}
	var evs []protocol.Event
	log := NewMemoryLog("t", "sys")
	p := llm.WithRetry(openai.New(openai.Config{URL: srv.URL()}), llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond})
	a := New(Config{Provider: p, Model: "test", Env: &tool.Env{Workspace: "/"}, Log: log, Emit: func(e protocol.Event) { evs = append(evs, e) }, Verify: v})
	out, err := a.Turn(context.Background(), protocol.Text("go"), nil)
	if err != nil || out.Kind != session.Failed || out.Answer != "verification failed: nope" {
		t.Fatalf("%+v %v", out, err)
	}
	if tf, ok := evs[len(evs)-1].(protocol.TurnFailed); !ok || tf.Error != "verification failed: nope" {
		t.Errorf("last event %#v", evs[len(evs)-1])
	}
}
