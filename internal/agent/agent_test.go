package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/llm/openai"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/internal/tool/control"
	"github.com/openseek/openseek/protocol"
)

type noopArgs struct {
	Note string `json:"note,omitempty"`
}

func noopTool() tool.Tool {
	return tool.Func("noop", "does nothing", func(ctx context.Context, env *tool.Env, a noopArgs) tool.Result {
		return tool.TextResult("ok")
	})
}

// testProvider speaks to srv, retrying at once.
func testProvider(srv *llmtest.Server) llm.Provider {
	return llm.WithRetry(openai.New(openai.Config{URL: srv.URL()}), llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond})
}

func newAgent(srv *llmtest.Server, log Log, emit func(protocol.Event), maxSteps int) *Agent {
	p := testProvider(srv)
	return New(Config{
		Provider: p, Model: "test", Tools: tool.NewRegistry(noopTool()),
		Env: &tool.Env{Workspace: "/"}, Log: log, Emit: emit, MaxSteps: maxSteps, Backoff: time.Millisecond,
	})
}

func TestTurnRecordsEveryStepAndEndsOnce(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Text: "checking", Reasoning: "hmm", Calls: []llmtest.Call{{ID: "1", Name: "noop", Args: `{}`}, {ID: "2", Name: "noop", Args: ``}}},
		llmtest.Calls(llmtest.Call{ID: "3", Name: "finish", Args: `{"answer":"x"}`}),
		llmtest.Text("final"),
	)
	var evs []string
	log := NewMemoryLog("t", "sys")
	a := newAgent(srv, log, func(e protocol.Event) { evs = append(evs, e.EventName()) }, 0)
	out, err := a.Turn(context.Background(), protocol.Text("go"), nil)
	if err != nil || !out.OK() || out.Answer != "final" || out.Steps != 3 {
		t.Fatalf("%+v %v", out, err)
	}
	got := strings.Join(evs, " ")
	want := "agent_step reasoning_delta assistant_delta reasoning_message assistant_message usage context_health tool_started tool_result tool_started tool_result " +
		"agent_step usage context_health tool_call_decode_error tool_result agent_step assistant_delta assistant_message usage context_health agent_finished"
	if got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	var kinds []string
	for _, e := range log.Session().Events {
		kinds = append(kinds, e.Item.ItemKind())
	}
	if strings.Join(kinds, " ") != "user assistant tool_result tool_result assistant tool_result assistant terminal" {
		t.Errorf("log %v", kinds)
	}
}

func TestFinishToolEndsTheTurnWithItsAnswer(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Calls(
		llmtest.Call{ID: "1", Name: "noop", Args: `{}`},
		llmtest.Call{ID: "2", Name: "finish", Args: `{"answer":"all done"}`},
	))
	log := NewMemoryLog("t", "sys")
	a := newAgent(srv, log, nil, 0)
	a.SetTools(tool.NewRegistry(append(control.Tools(), noopTool())...))
	out, err := a.Turn(context.Background(), protocol.Text("go"), nil)
	if err != nil || !out.OK() || out.Answer != "all done" || out.Steps != 1 {
		t.Fatalf("%+v %v", out, err)
	}
	if term, _ := log.Session().LastTerminal(); term.Kind != session.Finished || term.Message != "all done" {
		t.Errorf("terminal %+v", term)
	}
}

func TestMaxStepsEndsTheTurn(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "1", Name: "noop", Args: `{}`}))
	log := NewMemoryLog("t", "sys")
	a := newAgent(srv, log, nil, 1)
	out, err := a.Turn(context.Background(), protocol.Text("go"), nil)
	if err != nil || out.Kind != session.MaxStepsExhausted {
		t.Fatalf("%+v %v", out, err)
	}
	if term, _ := log.Session().LastTerminal(); term.Kind != session.MaxStepsExhausted {
		t.Errorf("terminal %+v", term)
	}
}

func TestATurnFailsReadably(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Fail{Status: 500}, llmtest.Fail{Status: 500})
	var failed string
	a := newAgent(srv, NewMemoryLog("t", "sys"), func(e protocol.Event) {
		if f, ok := e.(protocol.TurnFailed); ok {
			failed = f.Error
		}
	}, 0)
	out, _ := a.Turn(context.Background(), protocol.Text("go"), nil)
	if out.Kind != session.Failed || !strings.Contains(failed, "500") {
		t.Errorf("%+v %q", out, failed)
	}
}

// BenchmarkStep measures the engine's own cost of one step with a tool:
// projecting the log, building and sending the request over loopback HTTP,
// decoding the stream, dispatching a no-op tool and recording its result.
func BenchmarkStep(b *testing.B) {
	srv := llmtest.NewServer(b)
	log := NewMemoryLog("bench", strings.Repeat("system prompt ", 200))
	a := newAgent(srv, log, nil, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		srv.Push(llmtest.Calls(llmtest.Call{ID: "c", Name: "noop", Args: `{"note":"x"}`}), llmtest.Text("done"))
		srv.ExpectPrefixBreak() // every iteration starts a fresh conversation
		if out, err := a.Turn(context.Background(), protocol.Text("step"), nil); err != nil || !out.OK() {
			b.Fatal(out, err)
		}
		// Keep the conversation from growing across iterations.
		log = NewMemoryLog("bench", log.Session().SystemPrompt)
		a.cfg.Log = log
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(2*b.N), "µs/step")
}

var _ = json.Valid

func TestLoopGuardWarnsThenStops(t *testing.T) {
	var turns []llmtest.Turn
	for i := 0; i < 8; i++ {
		turns = append(turns, llmtest.Calls(llmtest.Call{ID: fmt.Sprintf("c%d", i), Name: "noop", Args: `{"note": "same"}`}))
	}
	srv := llmtest.NewServer(t, turns...)
	log := NewMemoryLog("t", "sys")
	var aborted string
	a := newAgent(srv, log, func(e protocol.Event) {
		if ab, ok := e.(protocol.AgentAborted); ok {
			aborted = ab.Reason
		}
	}, 0)
	out, err := a.Turn(context.Background(), protocol.Text("go"), nil)
	if err != nil || out.Kind != session.Aborted || out.Steps != loopStopAt {
		t.Fatalf("%+v %v", out, err)
	}
	if !strings.Contains(aborted, "loop guard: noop was called 6 times") {
		t.Errorf("reason %q", aborted)
	}
	var warned int
	for _, e := range log.Session().Events {
		if n, ok := e.Item.(*session.Notice); ok && strings.HasPrefix(n.Content, "[loop guard]") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d loop-guard notices, want 1", warned)
	}
}

func TestPlanAndGoalReminders(t *testing.T) {
	var turns []llmtest.Turn
	turns = append(turns, llmtest.Calls(llmtest.Call{ID: "p", Name: "plan", Args: `{"steps":[{"step":"write code","status":"in_progress"},{"step":"test it","status":"pending"}]}`}))
	for i := 0; i < 4; i++ {
		turns = append(turns, llmtest.Calls(llmtest.Call{ID: fmt.Sprintf("n%d", i), Name: "noop", Args: fmt.Sprintf(`{"note":"%d"}`, i)}))
	}
	turns = append(turns, llmtest.Calls(llmtest.Call{ID: "g", Name: "goal", Args: `{"status":"met"}`}), llmtest.Text("done"))
	srv := llmtest.NewServer(t, turns...)
	log := NewMemoryLog("t", "sys")
	log.Append(&session.Notice{Content: session.GoalSetPrefix + "ship"})
	var names []string
	a := newAgent(srv, log, func(e protocol.Event) { names = append(names, e.EventName()) }, 0)
	a.cfg.PlanReminderEvery, a.cfg.GoalReminderEvery = 3, 4
	a.SetTools(tool.NewRegistry(append(control.Tools(), noopTool())...))
	if out, err := a.Turn(context.Background(), protocol.Text("go"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	joined := strings.Join(names, " ")
	if !strings.Contains(joined, "plan_reminder") || !strings.Contains(joined, "goal_reminder") || !strings.Contains(joined, "goal_updated") {
		t.Errorf("events: %s", joined)
	}
	var reminder string
	for _, e := range log.Session().Events {
		if n, ok := e.Item.(*session.Notice); ok && strings.HasPrefix(n.Content, session.PlanReminderPrefix) {
			reminder = n.Content
		}
	}
	if !strings.Contains(reminder, "[in_progress] write code") || !strings.Contains(reminder, "[pending] test it") {
		t.Errorf("plan reminder %q", reminder)
	}
}

func TestHardCeilingRunsNoToolBatch(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Calls: []llmtest.Call{{ID: "1", Name: "noop", Args: `{}`}}, Usage: &protocol.Usage{PromptTokens: 900, CompletionTokens: 10, TotalTokens: 910, PromptCacheMissTokens: 900}},
		llmtest.Reply{Summary: true, Text: "The user said go; a noop call was refused at the ceiling."},
	)
	log := NewMemoryLog("t", "sys")
	ran := false
	a := newAgent(srv, log, nil, 0)
	a.SetTools(tool.NewRegistry(tool.Func("noop", "does nothing", func(ctx context.Context, env *tool.Env, a noopArgs) tool.Result {
		ran = true
		return tool.TextResult("ok")
	})))
	a.cfg.Window = 1000 // 900 prompt tokens is over the 80% hard ceiling
	out, err := a.Turn(context.Background(), protocol.Text("go"), nil)
	if err != nil || out.Kind != session.ContextYield {
		t.Fatalf("%+v %v", out, err)
	}
	if ran {
		t.Error("a tool ran above the hard ceiling")
	}
	var res *session.ToolResult
	for _, e := range log.Session().Events {
		if r, ok := e.Item.(*session.ToolResult); ok {
			res = r
		}
	}
	if res == nil || !res.IsError || !strings.Contains(res.Content.Text(), "context window") {
		t.Errorf("result %+v", res)
	}
}

// callLog records which items each append carried, in one call or many.
type callLog struct {
	*MemoryLog
	calls [][]string
}

func (l *callLog) Append(item session.Item) (session.Event, error) {
	evs, err := l.AppendAll(item)
	if err != nil {
		return session.Event{}, err
	}
	return evs[0], nil
}

func (l *callLog) AppendAll(items ...session.Item) ([]session.Event, error) {
	var kinds []string
	for _, it := range items {
		kinds = append(kinds, it.ItemKind())
	}
	l.calls = append(l.calls, kinds)
	return l.MemoryLog.AppendAll(items...)
}

// What the gate records at a turn's end (the engine's "changed no files"
// marker) is appended with the turn's terminal item, in one append: one
// sync of the session file where there were two. What it records before
// tools is appended before they run.
func TestGateRecordsGoWithTheTurnsEnd(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "1", Name: "noop", Args: `{}`}),
		llmtest.Text("done"),
	)
	log := &callLog{MemoryLog: NewMemoryLog("t", "sys")}
	a := newAgent(srv, log, nil, 0)
	var passes []string
	a.SetGate(func(calls []chat.ToolCall, end bool) (bool, []session.Item, error) {
		if end {
			passes = append(passes, "end")
			return true, []session.Item{&session.Notice{Content: "at the end"}}, nil
		}
		passes = append(passes, "tools")
		return false, []session.Item{&session.Notice{Content: "before the tools"}}, nil
	})
	out, err := a.Turn(context.Background(), protocol.Text("go"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	var got []string
	for _, c := range log.calls {
		got = append(got, strings.Join(c, "+"))
	}
	want := "user assistant runtime_notice tool_result assistant runtime_notice+terminal"
	if strings.Join(got, " ") != want {
		t.Errorf("appends %q, want %q (gate passes %v)", strings.Join(got, " "), want, passes)
	}
}
