package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// promptAndClose records one turn in session id and closes it.
func promptAndClose(t *testing.T, h *Host, id string) int {
	t.Helper()
	s, err := h.Open(context.Background(), OpenOptions{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := s.Prompt(context.Background(), protocol.Text("say hi"), nil); err != nil || !out.OK() {
		t.Fatal(out, err)
	}
	last := s.Snapshot().LastSequence()
	s.Close()
	return last
}

func TestHostCompactOpensTheSessionAndClosesIt(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Text("hi"),
		llmtest.Reply{Summary: true, Text: "The user asked for a greeting and got one. Nothing remains."},
		llmtest.Reply{Summary: true, Text: "   "},
	)
	h := newHost(t, srv, nil)
	last := promptAndClose(t, h, "c1")
	done, err := h.Compact(context.Background(), "c1", "test")
	if err != nil {
		t.Fatal(err)
	}
	if done.From != 1 || done.To != last || done.Last <= last {
		t.Errorf("compacted %+v of a session whose last event was %d", done, last)
	}
	if _, open := h.Get("c1"); open {
		t.Error("the session opened for the compaction stayed open")
	}
	sess, err := h.LoadSession("c1")
	if err != nil {
		t.Fatal(err)
	}
	if sess.LastSequence() != done.Last {
		t.Errorf("the log ends at %d, the compaction said %d", sess.LastSequence(), done.Last)
	}

	// A summary that comes back empty: an error, the log as it was.
	_, err = h.Compact(context.Background(), "c1", "test")
	if err == nil || !strings.HasPrefix(err.Error(), "compaction failed, the session is unchanged: ") {
		t.Errorf("failed compaction: %v", err)
	}
	if sess, _ := h.LoadSession("c1"); sess.LastSequence() != done.Last {
		t.Errorf("a failed compaction wrote: %d → %d", done.Last, sess.LastSequence())
	}

	if _, err := h.Compact(context.Background(), "nope", "test"); err == nil || !strings.Contains(err.Error(), "session nope does not exist") {
		t.Errorf("unknown session: %v", err)
	}
	if h.Store().Exists("nope") {
		t.Error("compacting an unknown session created it")
	}
}

func TestHostCompactsAnOpenSessionWhereItIs(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Text("hi"),
		llmtest.Reply{Summary: true, Text: "The user asked for a greeting and got one. Nothing remains."},
		llmtest.Text("again"),
	)
	h := newHost(t, srv, nil)
	s, err := h.Open(context.Background(), OpenOptions{ID: "live"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(context.Background(), protocol.Text("say hi"), nil); err != nil {
		t.Fatal(err)
	}
	// Another writer could not take the log: the open session compacts.
	done, err := h.Compact(context.Background(), "live", "test")
	if err != nil {
		t.Fatal(err)
	}
	if got, open := h.Get("live"); !open || got != s {
		t.Fatal("the compaction closed the session its clients use")
	}
	if s.Snapshot().LastSequence() != done.Last {
		t.Errorf("the session ends at %d, the compaction said %d", s.Snapshot().LastSequence(), done.Last)
	}
	if out, err := s.Prompt(context.Background(), protocol.Text("and again"), nil); err != nil || out.Answer != "again" {
		t.Errorf("the session after the compaction: %+v %v", out, err)
	}
}

func TestHostCompactText(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("hi"))
	h := newHost(t, srv, nil)
	last := promptAndClose(t, h, "c1")
	done, err := h.CompactText("c1", "test", "greeted the user", 1, last)
	if err != nil {
		t.Fatal(err)
	}
	if done != (Compacted{From: 1, To: last, Last: last + 1}) {
		t.Errorf("compacted %+v; the session had %d events", done, last)
	}
	if _, err := h.CompactText("c1", "test", "x", 2, 99); err == nil || !strings.Contains(err.Error(), "exceeds last sequence") {
		t.Errorf("a range past the end: %v", err)
	}
}
