package runtime

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// A turn that crosses the soft ceiling checkpoints: the history is
// summarised, the turn yields, and the next turn continues from the
// summary with a request far smaller than before.
func TestSoftCeilingCheckpointsAndYields(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"seq 1 600"}`}),
		llmtest.Reply{Summary: true, Text: "The user asked for numbers; seq 1 600 printed them. Next: report the count."},
		llmtest.Text("There were 600 numbers."),
	)
	// The window fits the first request (system prompt and every tool's
	// schema) under the soft ceiling, and not the command's output too.
	e, rec, _ := newEngine(t, srv, func(o *testOptions) { o.Window = 4500 })
	out, err := e.Prompt(context.Background(), protocol.Text("count to 600"), nil)
	if err != nil || out.Kind != session.ContextYield || !strings.HasPrefix(out.Answer, "[context ceiling]") {
		t.Fatalf("outcome %+v %v, want a context yield", out, err)
	}
	for _, want := range []string{"auto_compaction_started", "auto_compaction_finished", "context_yield"} {
		if !rec.has(want) {
			t.Errorf("no %s: %v", want, rec.names())
		}
	}
	out, err = e.Prompt(context.Background(), protocol.Text("continue"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("next turn %+v %v", out, err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Prompt) >= len(reqs[0].Prompt)+1500 {
		t.Errorf("the request after the checkpoint (%d bytes) did not shrink", len(last.Prompt))
	}
	joined := string(last.Prompt)
	if !strings.Contains(joined, "[conversation summary]") || strings.Contains(joined, "\\n599\\n") {
		t.Errorf("the summary does not replace the history: %.400s", joined)
	}
	// The summary request itself used the summarizer prompt and no tools.
	sum := reqs[1]
	if len(sum.Tools) != 0 || !strings.Contains(string(sum.Messages[0]), "handoff summaries") {
		t.Errorf("summary request: tools %v, system %s", sum.Tools, sum.Messages[0])
	}
}

// A summary that comes back empty fails open: the session stays as it
// was and the failure is reported.
func TestFailedCompactionLeavesTheSessionAlone(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Text("hi"),
		llmtest.Reply{Summary: true, Text: "   "},
		llmtest.Reply{Summary: true, Text: "!!! ### ..."},
	)
	e, rec, _ := newEngine(t, srv, nil)
	if _, err := e.Prompt(context.Background(), protocol.Text("hello"), nil); err != nil {
		t.Fatal(err)
	}
	before := e.Session().LastSequence()
	if err := e.Compact(context.Background()); err == nil {
		t.Error("an empty summary was accepted")
	}
	if err := e.Compact(context.Background()); err == nil {
		t.Error("a garbled summary was accepted")
	}
	if e.Session().LastSequence() != before {
		t.Error("a failed compaction wrote to the session")
	}
	var fails []string
	for _, ev := range rec.evs {
		if f, ok := ev.(protocol.CompactionFailed); ok {
			fails = append(fails, f.Error)
		}
	}
	if len(fails) != 2 || fails[0] != "compaction summary was empty" {
		t.Errorf("compaction_failed %q", fails)
	}
}

// TestPrefixCacheRatio measures how much of each request a provider's
// prefix cache could serve — the bytes shared with the previous request
// over the bytes sent — on a scripted task of 30 tool steps, one
// compaction, and 30 more steps. Every request must extend the previous
// one completely (the shared prefix is the whole previous prompt), so the
// only bytes not served from cache are each step's new messages.
func TestPrefixCacheRatio(t *testing.T) {
	const steps = 30
	var turns []llmtest.Turn
	for i := 1; i <= steps; i++ {
		turns = append(turns, llmtest.Calls(llmtest.Call{ID: fmt.Sprintf("a%d", i), Name: "shell", Args: fmt.Sprintf(`{"cmd":"seq %d 250"}`, i)}))
	}
	turns = append(turns, llmtest.Text("first half done"),
		llmtest.Reply{Summary: true, Text: "Ran seq thirty times; each printed numbers up to 250. Next: do it thirty more times."})
	for i := 1; i <= steps; i++ {
		turns = append(turns, llmtest.Calls(llmtest.Call{ID: fmt.Sprintf("b%d", i), Name: "shell", Args: fmt.Sprintf(`{"cmd":"seq %d 250"}`, i)}))
	}
	turns = append(turns, llmtest.Text("all done"))
	srv := llmtest.NewServer(t, turns...)
	e, _, _ := newEngine(t, srv, nil)
	if out, err := e.Prompt(context.Background(), protocol.Text("run seq 30 times"), nil); err != nil || !out.OK() {
		t.Fatal(out, err)
	}
	if err := e.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out, err := e.Prompt(context.Background(), protocol.Text("and 30 more"), nil); err != nil || !out.OK() {
		t.Fatal(out, err)
	}
	reqs := srv.Requests()
	summary := steps + 1 // reqs[0..steps] first turn, then the summary request
	ratio := func(from, to int) float64 {
		shared, sent := 0, 0
		for i := from; i < to; i++ {
			n := llmtest.SharedPrefix(reqs[i-1].Prompt, reqs[i].Prompt)
			if n != len(reqs[i-1].Prompt) {
				t.Errorf("request %d shares only %d of the previous request's %d bytes", i, n, len(reqs[i-1].Prompt))
			}
			shared += n
			sent += len(reqs[i].Prompt)
		}
		return float64(shared) / float64(sent)
	}
	before := ratio(1, summary)
	cold := float64(llmtest.SharedPrefix(reqs[summary-1].Prompt, reqs[summary+1].Prompt)) / float64(len(reqs[summary+1].Prompt))
	after := ratio(summary+2, len(reqs))
	t.Logf("prefix-cacheable fraction: before compaction %.1f%%, first request after it %.1f%%, after it %.1f%%", 100*before, 100*cold, 100*after)
	if before < 0.95 || after < 0.95 {
		t.Errorf("prefix-cacheable fraction before %.3f / after %.3f, want ≥ 0.95", before, after)
	}
}
