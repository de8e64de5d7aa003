package agent

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/anthropic"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/llm/openai"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// fromScratch is the non-incremental path: it checks that each step's
// messages are exactly the log's projection made from scratch and sends
// the request without the encoding cache.
type fromScratch struct {
	t   *testing.T
	p   llm.Provider
	log Log
}

func (f fromScratch) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	if req.Cache != nil { // a step (summary requests carry no cache)
		if want := f.log.Session().Messages(); !reflect.DeepEqual(req.Messages, want) {
			i := 0
			for i < min(len(want), len(req.Messages)) && reflect.DeepEqual(req.Messages[i], want[i]) {
				i++
			}
			f.t.Errorf("a step's %d messages are not the log's projection of %d: they differ from message %d on", len(req.Messages), len(want), i)
		}
		if req.Stable > len(req.Messages) {
			f.t.Errorf("stable %d beyond %d messages", req.Stable, len(req.Messages))
		}
		req.Cache, req.Stable = nil, 0
	}
	return f.p.Stream(ctx, req, on)
}

// scriptedServer is one of the scripted servers, as the test needs it.
type scriptedServer interface {
	Push(turns ...llmtest.Turn)
	ExpectPrefixBreak()
	Requests() []llmtest.Request
}

// longSession drives a long session through everything that changes the
// history: many tool steps with reasoning, parallel and unknown calls, a
// notice between turns, a checkpoint at the soft ceiling (summary and
// context yield), a rewind, a manual compaction. It returns the request
// bodies the server received.
func longSession(t *testing.T, vendor string, incremental bool) [][]byte {
	var srv scriptedServer
	var p llm.Provider
	switch vendor {
	case "openai":
		s := llmtest.NewServer(t)
		srv, p = s, openai.New(openai.Config{URL: s.URL()})
	case "anthropic":
		s := llmtest.NewAnthropicServer(t)
		srv, p = s, anthropic.New(anthropic.Config{BaseURL: s.URL()})
	}
	w, err := session.NewStore(t.TempDir()).OpenWriter("long", strings.Repeat("You are a coding agent. ", 20), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !incremental {
		p = fromScratch{t: t, p: p, log: w}
	}
	a := New(Config{
		Provider: p, Model: "test", Tools: tool.NewRegistry(benchTool()), Env: &tool.Env{Workspace: "/"},
		Log: w, Window: 1_000_000, Backoff: time.Millisecond,
	})
	step := 0
	calls := func(n int) {
		for range n {
			step++
			id := fmt.Sprintf("c%d", step)
			r := llmtest.Reply{Reasoning: fmt.Sprintf("step %d <&>", step), Calls: []llmtest.Call{{ID: id, Name: "noop", Args: fmt.Sprintf(`{"note":"%d"}`, step)}}}
			switch step % 5 {
			case 2:
				r.Calls = append(r.Calls, llmtest.Call{ID: id + "b", Name: "noop", Args: `{"note":"parallel"}`})
			case 4:
				r.Calls = append(r.Calls, llmtest.Call{ID: id + "x", Name: "missing", Args: `{}`})
			}
			srv.Push(r)
		}
	}
	turn := func(prompt string, wantKind session.TerminalKind) {
		t.Helper()
		out, err := a.Turn(context.Background(), protocol.Text(prompt), nil)
		if err != nil || out.Kind != wantKind {
			t.Fatalf("turn %q: %+v %v", prompt, out, err)
		}
	}

	calls(25)
	srv.Push(llmtest.Text("first part done"))
	turn("go", session.Finished)

	a.Notify("[job] build 1 finished")

	calls(4)
	// The provider counts the last request at 75% of the window: the
	// next step checkpoints (a summary, then a context yield).
	step++
	srv.Push(llmtest.Reply{Calls: []llmtest.Call{{ID: fmt.Sprint("c", step), Name: "noop", Args: `{"note":"big"}`}},
		Usage: &protocol.Usage{PromptTokens: 750_000, TotalTokens: 750_000, PromptCacheMissTokens: 750_000}})
	srv.Push(llmtest.Reply{Summary: true, Text: "The user asked for two parts; the first is done and checked, the second is half done."})
	turn("second part", session.ContextYield)

	calls(6)
	srv.Push(llmtest.Text("second part done"))
	turn("continue", session.Finished)

	if _, err := w.Append(&session.Notice{Content: session.RewindMarker(w.Session().LastSequence() - 8)}); err != nil {
		t.Fatal(err)
	}
	srv.ExpectPrefixBreak()
	calls(3)
	srv.Push(llmtest.Text("redone"))
	turn("redo the end differently", session.Finished)

	srv.Push(llmtest.Reply{Summary: true, Text: "Two parts were done, the end redone after a rewind; nothing remains open."})
	if err := a.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	calls(3)
	srv.Push(llmtest.Text("all done"))
	turn("one more check", session.Finished)

	var bodies [][]byte
	for _, r := range srv.Requests() {
		bodies = append(bodies, r.Body)
	}
	return bodies
}

// TestIncrementalRequestsMatchFromScratch runs one long session twice,
// building each request incrementally and from scratch, and checks that
// every request body sent is the same byte for byte (and, through the
// scripted servers, that consecutive requests keep their prefix).
func TestIncrementalRequestsMatchFromScratch(t *testing.T) {
	for _, vendor := range []string{"openai", "anthropic"} {
		t.Run(vendor, func(t *testing.T) {
			inc := longSession(t, vendor, true)
			ref := longSession(t, vendor, false)
			if len(inc) != len(ref) || len(inc) < 45 {
				t.Fatalf("%d requests incrementally, %d from scratch", len(inc), len(ref))
			}
			for i := range inc {
				if !bytes.Equal(inc[i], ref[i]) {
					t.Fatalf("request %d differs:\nincremental  %s\nfrom scratch %s", i+1, inc[i], ref[i])
				}
			}
		})
	}
}
