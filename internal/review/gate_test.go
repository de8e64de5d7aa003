package review

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// recorded is a real host session that also keeps what the gate
// publishes on it.
type recorded struct {
	*engine.Session
	events []protocol.Event
}

func (r *recorded) Publish(e protocol.Event) int64 {
	r.events = append(r.events, e)
	return r.Session.Publish(e)
}

// gateTurn opens a session on dir through a host and runs one turn.
func gateTurn(t *testing.T, o Options) (*recorded, agent.Outcome) {
	t.Helper()
	ctx := context.Background()
	host, err := engine.NewHost(ctx, o.Engine)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	s, err := host.Open(ctx, engine.OpenOptions{NoSession: true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Prompt(ctx, protocol.Text("simplify Div"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("the turn: %+v %v", out, err)
	}
	return &recorded{Session: s}, out
}

func TestGateSendsHighFindingsBackOnce(t *testing.T) {
	dir := repoWithBranch(t)
	put(t, dir, "calc.go", "package calc\n\nfunc Div(a, b int) int { return a / b }\n") // uncommitted
	srv := llmtest.NewServer(t,
		llmtest.Text("done"),     // the turn
		llmtest.Text(goodReport), // the review: one high finding
		llmtest.Text("fixed"),    // the turn, sent back
	)
	srv.MultiConversation() // the review is a conversation of its own
	o := options(t, dir, srv)
	s, first := gateTurn(t, o)
	out, err := Gate(context.Background(), s, first, o, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "fixed" || out.Steps != first.Steps+1 {
		t.Errorf("outcome %q after %d steps; want the answer of the turn sent back, after %d", out.Answer, out.Steps, first.Steps+1)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if review := string(reqs[1].Body); !strings.Contains(review, "uncommitted") {
		t.Errorf("the review is not of the uncommitted changes:\n%s", review)
	}
	back := string(reqs[2].Body)
	for _, want := range []string{"[review gate] A read-only review of your changes found 1 high-severity problem(s).", "calc.go:3-4 Div panics on zero", "Div(1, 0) now panics."} {
		if !strings.Contains(back, want) {
			t.Errorf("the turn sent back lacks %q:\n%s", want, back)
		}
	}
	if len(s.events) != 2 || s.events[0] != (protocol.SubrunStarted{ID: "review-gate", Kind: "review", Label: "review gate"}) ||
		s.events[1] != (protocol.SubrunFinished{ID: "review-gate", Status: protocol.SubrunCaptured}) {
		t.Errorf("published %#v", s.events)
	}
}

func TestGatePassesWithoutHighFindingsAndSurvivesAFailedReview(t *testing.T) {
	dir := repoWithBranch(t)
	put(t, dir, "calc.go", "package calc\n") // uncommitted
	srv := llmtest.NewServer(t,
		llmtest.Text("done"),
		llmtest.Text(`{"findings":[],"verdict":"approve"}`),
		llmtest.Fail{Status: 400}, // the second review
	)
	srv.MultiConversation() // the review is a conversation of its own
	o := options(t, dir, srv)
	s, first := gateTurn(t, o)
	out, err := Gate(context.Background(), s, first, o, time.Minute)
	if err != nil || out.Answer != first.Answer {
		t.Fatalf("a passed gate changed the outcome: %+v %v", out, err)
	}
	if n, ok := s.events[len(s.events)-1].(protocol.BackgroundNotice); !ok || n.Content != "[review gate] passed: 0 finding(s), none high-severity" {
		t.Errorf("last event %#v", s.events[len(s.events)-1])
	}

	// A review that cannot run (the model refuses it): the turn
	// stands, the sub-run failed.
	s.events = nil
	out, err = Gate(context.Background(), s, first, o, time.Minute)
	if err != nil || out.Answer != first.Answer {
		t.Fatalf("a failed review changed the outcome: %+v %v", out, err)
	}
	if f, ok := s.events[1].(protocol.SubrunFinished); !ok || f.Status != protocol.SubrunFailed {
		t.Errorf("finished %#v", s.events[1])
	}
	if n, ok := s.events[2].(protocol.BackgroundNotice); !ok || !strings.HasPrefix(n.Content, "[review gate] the review could not run: ") {
		t.Errorf("notice %#v", s.events[2])
	}
}
