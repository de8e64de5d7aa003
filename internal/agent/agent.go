// Package agent is the turn loop: it asks the model for a response, runs
// the tools the model calls, records everything in the session log, and
// repeats until the model gives a plain final answer, calls finish, runs
// out of steps, fails, or is cancelled.
//
// Invariants:
//   - The session log is the only memory. Every model request is the
//     projection of the log (session.Session.Messages), so a killed process
//     resumes from exactly what was recorded. The projection, its request
//     encoding and its size are kept up to date incrementally (history),
//     so a step's own cost does not grow with the session.
//   - A tool runs only after the complete assistant message that asked for
//     it has been appended to the log; a provider retry never runs a tool
//     twice.
//   - Every turn ends with exactly one terminal item and one terminal event.
//   - The loop does not know which frontend listens: it emits typed
//     protocol events through Config.Emit.
package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// Log is where a turn records what happens: a durable session.Writer or an
// in-memory log for --no-session runs.
type Log interface {
	Session() *session.Session
	Append(item session.Item) (session.Event, error)
	// AppendAll appends items in order as one record: one write and one
	// sync for all of them.
	AppendAll(items ...session.Item) ([]session.Event, error)
	Compact(content string, from, to int) (session.Event, error)
}

// Config is what a turn loop needs. The engine builds it.
type Config struct {
	Provider llm.Provider
	Model    string
	// Spec names the model in the session log ("provider/name") and Price
	// prices its responses there (llm.Price.Of); the zero Price records
	// no cost, which every face then shows as unknown.
	Spec     string
	Price    llm.Price
	Thinking string
	Tools    *tool.Registry
	Env      *tool.Env
	// MaxSteps bounds the model calls of one turn; 0 means unbounded.
	MaxSteps int
	Log      Log
	// Emit receives every event, in order. It must not block for long.
	Emit func(protocol.Event)
	// StreamRetries is how often a step whose stream broke after it had
	// started is requested again (failures before the first fragment are
	// retried by the provider's own retry policy). Default 2.
	StreamRetries int
	// Backoff is the pause before a step is requested again. Default 1s.
	Backoff time.Duration

	// Window is the model's context window in tokens (DefaultWindow when
	// 0); SoftCeiling and HardCeiling are fractions of it (0.70, 0.80).
	Window                   int
	SoftCeiling, HardCeiling float64
	// Reminder cadences in steps (DefaultGoalReminderEvery,
	// DefaultPlanReminderEvery when 0; negative disables).
	GoalReminderEvery, PlanReminderEvery int
	// Hooks, when set, are consulted around prompts, tools, stops and
	// compaction.
	Hooks Hooks
	// Verify, when set, checks the turn's work before its answer (a plain
	// final answer or finish) is accepted.
	Verify Verifier
	// ToolSearchBudget, when positive, is how many bytes of names,
	// descriptions and schemas the tools Deferrable picks may take
	// together before they are left out of requests, found on demand with
	// tool_search instead.
	ToolSearchBudget int
	Deferrable       func(name string) bool
	// Budget, when set, is asked before every model request with the
	// request's estimated prompt tokens; an error ends the turn (failed,
	// with the error's text) before the request is sent.
	Budget func(promptTokens int) error
}

// Verifier checks a turn's work before its answer is accepted (the
// engine wires package verify).
type Verifier interface {
	// BeginTurn is called as a turn starts; the check it returns runs at
	// each answer of that turn.
	BeginTurn(ctx context.Context) func(ctx context.Context) Verdict
}

// Verdict is a Verifier's decision about an answer: neither Repair nor
// Reject means it stands.
type Verdict struct {
	Note   string // recorded as a runtime notice when not empty
	Repair string // a user message for the model; the turn goes on
	Reject string // the turn ends failed with this reason
}

// PreToolDecision is what PreToolUse hooks decided about one call.
type PreToolDecision struct {
	Block     bool
	Reason    string // why it was blocked (for the model)
	Context   string // extra context for the model
	Arguments string // replacement arguments (JSON object); "" = unchanged
}

// Hooks are the user's guard rails around the loop (see package hooks).
// Each method may run external commands; the engine adapts them.
type Hooks interface {
	// UserPromptSubmit may refuse a prompt or add context to it.
	UserPromptSubmit(ctx context.Context, prompt string) (block bool, reason, context string)
	// PreToolUse may refuse a tool call before it runs, add context for
	// the model, or rewrite the call's arguments.
	PreToolUse(ctx context.Context, call chat.ToolCall) PreToolDecision
	// PostToolUse may add feedback for the model to a tool's result.
	PostToolUse(ctx context.Context, call chat.ToolCall, res tool.Result) (feedback string)
	// Stop may turn a final answer into "keep going" with a reason.
	Stop(ctx context.Context, active bool) (keepGoing bool, reason string)
	// PreCompact runs before a summary is made ("manual" or "auto").
	PreCompact(ctx context.Context, trigger string)
	// PostCompact runs after the model made summary, before it is
	// stored; a non-empty result replaces it.
	PostCompact(ctx context.Context, trigger, summary string) (replacement string)
}

// Outcome is how a turn ended.
type Outcome struct {
	Kind   session.TerminalKind
	Answer string // final answer, or the failure/abort reason
	// Steps counts the model's answers: a request cancelled or failed
	// before the model answered is no step (OpenSeek's run-request
	// result reports "steps":0 for a run cancelled while it retried).
	Steps int
	Usage protocol.Usage
	// Cause says why a turn that did not finish ended, where its kind
	// does not: the model could not be reached, a limit was hit, or the
	// prompt was refused. "" otherwise.
	Cause Cause
}

// Cause is why a turn ended early (Outcome.Cause).
type Cause string

// Causes.
const (
	CauseModel   Cause = "model"   // a model request failed (after its retries)
	CauseLimit   Cause = "limit"   // the budget, the context window or the loop guard stopped it
	CauseRefused Cause = "refused" // a hook refused the prompt
)

// OK reports whether the turn finished normally.
func (o Outcome) OK() bool { return o.Kind == session.Finished }

// Agent runs turns of one session, one at a time, and takes steering input
// while a turn runs. Its methods are safe for concurrent use.
type Agent struct {
	cfg Config

	mu     sync.Mutex
	active bool
	cancel context.CancelFunc
	queue  []queued

	hist   history    // used by the running turn only
	gate   Gate       // see SetGate; taken by the next turn
	ledger ledger     // files read, used by the running turn or compaction only
	health health     // likewise
	turns  int        // turns begun, for the ledger's answers
	search toolSearch // deferred tools found, used by the running turn only
}

// A Gate is what a turn passes before it runs tools, runs its check or
// records its end, so that work the engine does for the turn (the
// workspace's snapshot, the sandbox's first build) is done before
// anything can change the workspace. calls are the tool calls about to
// run; nil when the turn is about to run its check (end false) or to
// record its end (end true). The gate returns done once it need not be
// passed again in this turn: a gate that waits for the first call that
// can write returns false for calls that cannot. record are items the
// turn appends to its log at once; at the end, together with its
// terminal item in one append (one sync where there would be two). An
// error ends the turn as failed with it, before any tool or check runs.
type Gate func(calls []chat.ToolCall, end bool) (done bool, record []session.Item, err error)

// SetGate gives the next turn its gate (nil: none). The model's first
// request never waits for it.
func (a *Agent) SetGate(gate Gate) {
	a.mu.Lock()
	a.gate = gate
	a.mu.Unlock()
}

type queued struct {
	kind         string // "prompt", "command" or "notice"
	content      protocol.Content
	submissionID *string
}

// New returns an agent for cfg.
func New(cfg Config) *Agent {
	if cfg.StreamRetries == 0 {
		cfg.StreamRetries = 2
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Second
	}
	if cfg.Emit == nil {
		cfg.Emit = func(protocol.Event) {}
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.SoftCeiling <= 0 {
		cfg.SoftCeiling = DefaultSoftCeiling
	}
	if cfg.HardCeiling <= 0 {
		cfg.HardCeiling = DefaultHardCeiling
	}
	if cfg.GoalReminderEvery == 0 {
		cfg.GoalReminderEvery = DefaultGoalReminderEvery
	}
	if cfg.PlanReminderEvery == 0 {
		cfg.PlanReminderEvery = DefaultPlanReminderEvery
	}
	return &Agent{cfg: cfg}
}

// Active reports whether a turn is running.
func (a *Agent) Active() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.active
}

// SetTools replaces the tools offered from the next turn on (the set of
// tools is fixed within a turn so that request prefixes stay stable).
func (a *Agent) SetTools(r *tool.Registry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.Tools = r
}

// Cancel interrupts the running turn; a no-op when idle.
func (a *Agent) Cancel() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		a.cancel()
	}
}

// Steer queues input for the running turn; it is folded in at the next
// step boundary. It reports false, and queues nothing, when no turn runs.
func (a *Agent) Steer(kind string, content protocol.Content, submissionID *string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.active {
		return false
	}
	a.queue = append(a.queue, queued{kind: kind, content: content, submissionID: submissionID})
	return true
}

// Notify delivers a runtime notice (a background job ended, a goal was
// set, …). While a turn runs it is queued and folded in at the next step
// boundary (reported as steer_applied with kind "notice"); when idle it is
// appended to the log at once, so it is durable and the next turn's
// request carries it. It reports whether the notice was queued.
func (a *Agent) Notify(text string) bool {
	a.mu.Lock()
	if a.active {
		a.queue = append(a.queue, queued{kind: "notice", content: protocol.Text(text)})
		a.mu.Unlock()
		return true
	}
	a.mu.Unlock()
	if _, err := a.cfg.Log.Append(&session.Notice{Content: text}); err != nil {
		a.cfg.Emit(protocol.SessionError{Error: err.Error()})
	}
	return false
}

// ErrBusy is returned by Turn when a turn is already running.
var ErrBusy = errors.New("a turn is already running")

// Turn runs one turn for the user's input. It returns an error only when
// the turn could not start or its record could not be written; how the
// turn ended is in the Outcome.
func (a *Agent) Turn(ctx context.Context, input protocol.Content, submissionID *string) (Outcome, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t, err := a.begin(ctx, cancel)
	if err != nil {
		return Outcome{}, err
	}
	out, err := t.run(input, submissionID)
	a.settle()
	return out, err
}

// settle marks the running turn ended and deals with what arrived after
// its last step boundary: steers are reported as dropped (the controller
// may resubmit), notices are kept in the log.
func (a *Agent) settle() {
	a.mu.Lock()
	a.active, a.cancel = false, nil
	left := a.queue
	a.queue = nil
	a.mu.Unlock()
	for _, q := range left {
		if q.kind != "notice" {
			a.cfg.Emit(protocol.SteerDropped{Content: q.content, SubmissionID: q.submissionID})
		} else if _, err := a.cfg.Log.Append(&session.Notice{Content: q.content.Text()}); err != nil {
			a.cfg.Emit(protocol.SessionError{Error: err.Error()})
		}
	}
}

// begin marks a turn running (ErrBusy when one already is) and gives
// it the tools and the gate; cancel stops it.
func (a *Agent) begin(ctx context.Context, cancel context.CancelFunc) (*turn, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active {
		return nil, ErrBusy
	}
	a.active, a.cancel = true, cancel
	t := &turn{a: a, ctx: ctx, tools: a.cfg.Tools, gate: a.gate}
	a.gate = nil
	a.turns++
	return t, nil
}

// drain removes everything queued.
func (a *Agent) drain() []queued {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.queue
	a.queue = nil
	return q
}

// hasSteers reports whether steering input waits to be folded in.
func (a *Agent) hasSteers() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, q := range a.queue {
		if q.kind != "notice" {
			return true
		}
	}
	return false
}

// turn is the state of one running turn.
type turn struct {
	a        *Agent
	gate     Gate // see Agent.SetGate; nil once done
	ctx      context.Context
	steps    int // model requests started (AgentStep numbers, --max-steps)
	answered int // model answers received (Outcome.Steps)
	usage    protocol.Usage
	tools    *tool.Registry
	specs    []llm.ToolSpec
	meter    *meter
	loops    loopGuard

	compactFailed  bool // a checkpoint failed this turn: do not retry it
	goal           session.Goal
	hasGoal        bool
	goalAnswered   bool // the goal tool was used this turn
	goalChecked    bool // a goal check was injected this turn
	stopHooks      int  // times a Stop hook kept the turn going
	sincePlan      int  // steps since the plan was last updated or recalled
	sinceGoalNudge int
	check          func(context.Context) Verdict // nil: answers are not verified

	deferred map[string]llm.ToolSpec // tools left out until tool_search finds them

	msgs    []chat.Message // the context of the step's request, for the read ledger
	lastSeq int            // the sequence of the last event appended

	// What tools' own calls (see inner) left for the loop: their
	// notices, appended after the batch like the batch's own.
	innerMu      sync.Mutex
	innerNotices []string

	// cause is the Outcome.Cause of the end to come.
	cause Cause
}

func (t *turn) emit(e protocol.Event) { t.a.cfg.Emit(e) }

func (t *turn) append(item session.Item) error { return t.appendAll(item) }

// appendAll appends items as one record (see Log.AppendAll).
func (t *turn) appendAll(items ...session.Item) error {
	if len(items) == 0 {
		return nil
	}
	evs, err := t.a.cfg.Log.AppendAll(items...)
	if err != nil {
		t.emit(protocol.SessionError{Error: err.Error()})
		return err
	}
	t.lastSeq = evs[len(evs)-1].Sequence
	return nil
}

func (t *turn) run(input protocol.Content, submissionID *string) (Outcome, error) {
	cfg := &t.a.cfg
	if err := t.append(&session.User{Content: input, SubmissionID: submissionID}); err != nil {
		return Outcome{}, fmt.Errorf("record the prompt: %w", err)
	}
	if cfg.Hooks != nil {
		block, reason, extra := cfg.Hooks.UserPromptSubmit(t.ctx, input.Text())
		if block {
			t.cause = CauseRefused
			return t.end(session.Aborted, "prompt refused by a UserPromptSubmit hook: "+reason)
		}
		if extra != "" {
			if err := t.append(&session.Notice{Content: extra}); err != nil {
				return Outcome{}, err
			}
		}
	}
	t.specs = t.offer()
	t.a.hist.useTools(t.specs)
	t.meter = newMeter(cfg.Window, cfg.SoftCeiling, cfg.HardCeiling, t.specs)
	t.meter.ratio = t.a.ratio()
	t.goal, t.hasGoal = cfg.Log.Session().Goal()
	if cfg.Verify != nil {
		t.check = cfg.Verify.BeginTurn(t.ctx)
	}
	for {
		if err := t.foldQueued(); err != nil {
			return Outcome{}, err
		}
		if t.ctx.Err() != nil {
			return t.end(session.Interrupted, "cancelled")
		}
		if cfg.MaxSteps > 0 && t.steps >= cfg.MaxSteps {
			return t.end(session.MaxStepsExhausted, "")
		}
		if err := t.remind(); err != nil {
			return Outcome{}, err
		}
		hist := t.a.hist.view(cfg.Log.Session())
		est := t.meter.tokens(hist)
		if t.meter.overSoft(est) && !t.compactFailed {
			if t.steps > 0 {
				out, ok, err := t.checkpoint()
				if ok || err != nil {
					return out, err
				}
				t.compactFailed = true
			} else if _, ok := t.autoCompact(); !ok {
				// A resumed session that starts over the ceiling is
				// summarised first; the turn then goes on.
				t.compactFailed = true
			}
			hist = t.a.hist.view(cfg.Log.Session())
			est = t.meter.tokens(hist)
		}
		if t.meter.overHard(est) && t.compactFailed {
			t.cause = CauseLimit
			return t.end(session.Failed, fmt.Sprintf("the conversation no longer fits the model's context window (about %d of %d tokens) and could not be summarised", est, cfg.Window))
		}
		if cfg.Budget != nil {
			if err := cfg.Budget(est); err != nil {
				t.cause = CauseLimit
				return t.end(session.Failed, err.Error())
			}
		}
		t.steps++
		t.sincePlan++
		t.sinceGoalNudge++
		t.emit(protocol.AgentStep{Step: t.steps})

		t.msgs = hist.msgs
		resp, err := t.request(hist)
		if err != nil {
			if t.ctx.Err() != nil {
				return t.end(session.Interrupted, "cancelled")
			}
			t.cause = CauseModel
			return t.end(session.Failed, failureText(err))
		}
		t.answered++
		t.meter.observe(t.meter.bytes(hist), resp.Usage.PromptTokens)
		t.a.health.ratio = t.meter.ratio
		t.report(resp, est)
		if err := t.append(t.assistantItem(resp)); err != nil {
			return Outcome{}, err
		}

		if len(resp.ToolCalls) == 0 {
			again, err := t.keepGoing()
			if err != nil {
				return Outcome{}, err
			}
			if again {
				continue
			}
			repair, out, err := t.verify(resp.Content)
			if err != nil || !repair {
				return out, err
			}
			continue
		}

		notice, stop := t.loops.check(resp.ToolCalls)
		// The provider's own count of this request (just calibrated) plus
		// what the response added.
		after := t.meter.tokens(hist) + resp.Usage.CompletionTokens
		var ctl tool.Control
		var answer string
		if err := t.passGate(resp.ToolCalls, false); err != nil {
			return t.end(session.Failed, err.Error())
		}
		if t.meter.overHard(after) {
			err = t.skipTools(resp.ToolCalls, "error: not run: the conversation is close to the model's context window; the turn checkpoints first, then continue")
		} else {
			ctl, answer, err = t.runTools(resp.ToolCalls, after)
		}
		if err != nil {
			return Outcome{}, err
		}
		switch {
		case t.ctx.Err() != nil:
			return t.end(session.Interrupted, "cancelled")
		case ctl == tool.Finish:
			repair, out, err := t.verify(answer)
			if err != nil || !repair {
				return out, err
			}
		case ctl == tool.Abort:
			return t.end(session.Aborted, answer)
		case stop != "":
			t.cause = CauseLimit
			return t.end(session.Aborted, stop)
		case notice != "":
			if err := t.append(&session.Notice{Content: notice}); err != nil {
				return Outcome{}, err
			}
		}
	}
}

// keepGoing decides, when the model gave a plain answer, whether the turn
// goes on: steering arrived meanwhile, a standing goal was not addressed,
// or a Stop hook asks for more.
func (t *turn) keepGoing() (bool, error) {
	cfg := &t.a.cfg
	// Steering that arrived while the model answered is not lost.
	if t.a.hasSteers() {
		return true, nil
	}
	if t.hasGoal && !t.goal.Blocked && !t.goalAnswered && !t.goalChecked {
		t.goalChecked = true
		text := session.GoalCheckPrefix + " A standing goal is set:\n" + t.goal.Text +
			"\nBefore you stop: if it is fully met, call goal with status \"met\"; if work remains, keep working (or call goal with status \"continuing\"); if you cannot proceed, call goal with status \"blocked\" and say why."
		if err := t.append(&session.Notice{Content: text}); err != nil {
			return false, err
		}
		t.emit(protocol.GoalCheck{Content: text})
		return true, nil
	}
	if cfg.Hooks != nil && t.stopHooks < 5 {
		if again, reason := cfg.Hooks.Stop(t.ctx, t.stopHooks > 0); again {
			t.stopHooks++
			if err := t.append(&session.Notice{Content: "[stop hook] " + reason}); err != nil {
				return false, err
			}
			return true, nil
		}
	}
	return false, nil
}

// verify runs the turn's check on an answer. It reports repair when the
// failure was handed to the model and the turn goes on; otherwise the
// turn has ended (finished with answer, failed, or interrupted) as out says.
func (t *turn) verify(answer string) (repair bool, out Outcome, err error) {
	var v Verdict
	if t.check != nil {
		if err := t.passGate(nil, false); err != nil {
			out, err = t.end(session.Failed, err.Error())
			return false, out, err
		}
		v = t.check(t.ctx)
	}
	if v.Note != "" {
		if err := t.append(&session.Notice{Content: v.Note}); err != nil {
			return false, Outcome{}, err
		}
	}
	switch {
	case t.ctx.Err() != nil:
		out, err = t.end(session.Interrupted, "cancelled")
	case v.Repair != "":
		return true, Outcome{}, t.append(&session.User{Content: protocol.Text(v.Repair)})
	case v.Reject != "":
		out, err = t.end(session.Failed, v.Reject)
	default:
		out, err = t.end(session.Finished, answer)
	}
	return false, out, err
}

// remind appends the periodic goal and plan reminders that are due.
func (t *turn) remind() error {
	cfg := &t.a.cfg
	if t.hasGoal && !t.goal.Blocked && cfg.GoalReminderEvery > 0 && t.sinceGoalNudge >= cfg.GoalReminderEvery {
		t.sinceGoalNudge = 0
		text := session.GoalReminderPrefix + " The standing goal is still:\n" + t.goal.Text
		if err := t.append(&session.Notice{Content: text}); err != nil {
			return err
		}
		t.emit(protocol.GoalReminder{Content: text})
	}
	if cfg.PlanReminderEvery > 0 && t.sincePlan >= cfg.PlanReminderEvery {
		t.sincePlan = 0
		if open := openPlan(cfg.Log.Session()); len(open) > 0 {
			var b strings.Builder
			fmt.Fprintf(&b, "%s Your plan has %d open step(s):", session.PlanReminderPrefix, len(open))
			for _, st := range open {
				fmt.Fprintf(&b, "\n- [%s] %s", st.Status, st.Step)
			}
			b.WriteString("\nKeep it current with the plan tool as you finish steps.")
			if err := t.append(&session.Notice{Content: b.String()}); err != nil {
				return err
			}
			t.emit(protocol.PlanReminder{Content: b.String()})
		}
	}
	return nil
}

// skipTools answers every call with the same error, running none.
func (t *turn) skipTools(calls []chat.ToolCall, msg string) error {
	for _, c := range calls {
		if err := t.record(c, tool.Result{Content: protocol.Text(msg), IsError: true}); err != nil {
			return err
		}
	}
	return nil
}

// foldQueued appends queued steers and notices to the log at a step
// boundary and reports them.
func (t *turn) foldQueued() error {
	for _, q := range t.a.drain() {
		var item session.Item
		if q.kind == "notice" {
			item = &session.Notice{Content: q.content.Text()}
		} else {
			item = &session.User{Content: q.content, SubmissionID: q.submissionID}
		}
		if err := t.append(item); err != nil {
			return err
		}
		t.emit(protocol.SteerApplied{Kind: q.kind, Content: q.content, SubmissionID: q.submissionID})
	}
	return nil
}

// request asks the model for one response, streaming its fragments as
// events. A stream that breaks after it started is requested again (the
// controller is told by stream_retry to discard the partial output);
// nothing has run yet for this step, so nothing runs twice.
func (t *turn) request(hist view) (*llm.Response, error) {
	cfg := &t.a.cfg
	req := llm.Request{
		Model:    cfg.Model,
		Messages: hist.msgs,
		Tools:    t.specs,
		Thinking: cfg.Thinking,
		Cache:    t.a.hist.cache,
		Stable:   hist.stable,
	}
	max := cfg.StreamRetries + 1
	for attempt := 1; ; attempt++ {
		streamed := false
		resp, err := cfg.Provider.Stream(t.ctx, req, func(d llm.Delta) {
			switch d.Kind {
			case llm.TextDelta:
				streamed = true
				t.emit(protocol.AssistantDelta{Content: d.Text})
			case llm.ReasoningDelta:
				streamed = true
				t.emit(protocol.ReasoningDelta{Content: d.Text})
			case llm.Retry:
				t.emit(protocol.StreamRetry{Attempt: d.Attempt, MaxAttempts: d.MaxAttempts, Reason: d.Reason})
			}
		})
		if err == nil || !streamed || attempt >= max || t.ctx.Err() != nil || !llm.IsRetryable(err) {
			return resp, err
		}
		t.emit(protocol.StreamRetry{Attempt: attempt + 1, MaxAttempts: max, Reason: err.Error()})
		select {
		case <-t.ctx.Done():
			return nil, t.ctx.Err()
		case <-time.After(cfg.Backoff):
		}
	}
}

// report emits the complete message events and usage of a response,
// then the context's health: the provider's prompt tokens (est, the
// meter's estimate, when it reports none) plus the answer's.
func (t *turn) report(resp *llm.Response, est int) {
	if resp.Reasoning != nil && *resp.Reasoning != "" {
		t.emit(protocol.ReasoningMessage{Content: *resp.Reasoning})
	}
	if resp.Content != "" {
		t.emit(protocol.AssistantMessage{Content: resp.Content})
	}
	t.usage = t.usage.Add(resp.Usage)
	t.emit(protocol.UsageEvent{Usage: resp.Usage})
	used := resp.Usage.PromptTokens
	if used <= 0 {
		used = est
	}
	t.a.reportContext(used + resp.Usage.CompletionTokens)
}

func (t *turn) assistantItem(resp *llm.Response) *session.Assistant {
	u := resp.Usage
	a := &session.Assistant{
		Content:   resp.Content,
		ToolCalls: append([]chat.ToolCall{}, resp.ToolCalls...),
		Reasoning: resp.Reasoning,
		Usage:     &u,
		Model:     t.a.cfg.Spec,

		ReasoningSignature: resp.ReasoningSignature,
		ReasoningItems:     resp.ReasoningItems,
	}
	if usd, ok := t.a.cfg.Price.Of(u); ok {
		a.CostUSD = &usd
	}
	return a
}

// runTools runs every call of one assistant message in order and records
// each result. A call does not start when its worst-case result would not
// fit in the context window. It returns the strongest control a tool
// asked for.
func (t *turn) runTools(calls []chat.ToolCall, tokens int) (tool.Control, string, error) {
	ctl, answer := tool.Respond, ""
	var notices []string
	for i := 0; i < len(calls); {
		// A run of concurrent calls (sub-agents) runs at once; everything
		// else runs alone, in order.
		j := i + 1
		if t.concurrent(calls[i]) {
			for j < len(calls) && t.concurrent(calls[j]) {
				j++
			}
		}
		results := make([]tool.Result, j-i)
		if j-i == 1 {
			results[0] = t.execute(calls[i], tokens)
		} else {
			var wg sync.WaitGroup
			for k := i; k < j; k++ {
				wg.Add(1)
				go func(k int) {
					defer wg.Done()
					results[k-i] = t.execute(calls[k], tokens)
				}(k)
			}
			wg.Wait()
		}
		for k, res := range results {
			c := calls[i+k]
			res = t.useLedger(res)
			tokens += int(float64(len(res.Content.Text())+64) / t.meter.ratio)
			if err := t.record(c, res); err != nil {
				return ctl, "", err
			}
			t.noteRead(c, res)
			if c.Name == "goal" && !res.IsError {
				t.goalAnswered = true
				if t.goal.Blocked && goalStatus(res.Data) == "continuing" {
					notices = append(notices, session.GoalUnblocked)
				}
			}
			if c.Name == "plan" && !res.IsError {
				t.sincePlan = 0
			}
			notices = append(notices, res.Notices...)
			if res.Control > ctl && !res.IsError {
				ctl, answer = res.Control, res.Content.Text()
			}
		}
		i = j
	}
	t.innerMu.Lock()
	notices = append(notices, t.innerNotices...)
	t.innerNotices = nil
	t.innerMu.Unlock()
	for _, n := range notices {
		if err := t.append(&session.Notice{Content: n}); err != nil {
			return ctl, "", err
		}
		t.markerEvent(n)
	}
	return ctl, answer, nil
}

// concurrent reports whether c's tool may run beside its neighbours.
func (t *turn) concurrent(c chat.ToolCall) bool {
	tl, ok := t.tools.Get(c.Name)
	return ok && tl.Concurrent
}

// execute runs one call unless the turn was cancelled or its worst-case
// result would not fit in the context window.
func (t *turn) execute(c chat.ToolCall, tokens int) tool.Result {
	switch {
	case t.ctx.Err() != nil:
		return tool.Result{Content: protocol.Text("error: not run: the turn was cancelled"), IsError: true}
	case !t.meter.fits(tokens):
		return tool.Result{Content: protocol.Text("error: not run: its result might not fit in the model's context window; the turn checkpoints first"), IsError: true}
	}
	return t.call(tool.WithCaller(t.ctx, &inner{t: t, parent: c}), c, "")
}

// record appends a tool's result and reports it.
func (t *turn) record(c chat.ToolCall, res tool.Result) error {
	item := &session.ToolResult{
		ToolCallID: c.ID,
		ToolName:   c.Name,
		Content:    res.Content,
		IsError:    res.IsError,
		Data:       res.Data,
	}
	var brief *string
	if res.Brief != "" {
		b := res.Brief
		brief, item.Brief = &b, &b
	}
	if err := t.append(item); err != nil {
		return err
	}
	t.emit(protocol.ToolResult{ToolCallID: c.ID, ToolName: c.Name, IsError: res.IsError, Content: res.Content.Text(), Brief: brief, Diff: diffOf(res.Data)})
	return nil
}

// markerEvent reports a goal marker notice and tracks the goal state.
func (t *turn) markerEvent(n string) {
	switch {
	case n == session.GoalCleared:
		t.hasGoal = false
		t.emit(protocol.GoalUpdated{Goal: nil})
	case strings.HasPrefix(n, session.GoalBlockedPrefix):
		t.goal.Blocked = true
		t.emit(protocol.GoalBlocked{Reason: strings.TrimPrefix(n, session.GoalBlockedPrefix)})
	case n == session.GoalUnblocked:
		t.goal.Blocked = false
		t.emit(protocol.GoalUnblocked{})
	}
}

// diffOf is the "diff" string an edit tool put in its result's data, for
// clients that show edits; nil when there is none.
func diffOf(data json.RawMessage) *string {
	if len(data) == 0 || !bytes.Contains(data, []byte(`"diff"`)) {
		return nil
	}
	var d struct {
		Diff string `json:"diff"`
	}
	if json.Unmarshal(data, &d) != nil || d.Diff == "" {
		return nil
	}
	return &d.Diff
}

func goalStatus(data json.RawMessage) string {
	var d struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(data, &d)
	return d.Status
}

// call runs one tool call — the model's, or one a tool made on its own
// (parent names the call that made it). Unknown tools, undecodable
// arguments and panics become error results the model can read; the
// turn goes on.
func (t *turn) call(ctx context.Context, c chat.ToolCall, parent string) (res tool.Result) {
	cfg := &t.a.cfg
	tl, ok := t.tools.Get(c.Name)
	if !ok {
		msg := fmt.Sprintf("error: there is no tool named %q; available tools: %s", c.Name, strings.Join(toolNames(t.tools), ", "))
		t.emit(protocol.ToolCallDecodeError{ToolCallID: c.ID, ToolName: c.Name, Error: msg})
		return tool.Result{Content: protocol.Text(msg), IsError: true}
	}
	args := c.Arguments
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	defer func() {
		if p := recover(); p != nil {
			res = tool.Result{Content: protocol.Text(fmt.Sprintf("error: %s crashed: %v", c.Name, p)), IsError: true}
		}
	}()
	var extra string
	if cfg.Hooks != nil {
		d := cfg.Hooks.PreToolUse(ctx, c)
		if d.Block {
			return tool.Result{Content: protocol.Text("error: a PreToolUse hook blocked this call: " + d.Reason), IsError: true}
		}
		extra = d.Context
		if d.Arguments != "" {
			args = d.Arguments
		}
	}
	t.emit(protocol.ToolStarted{ToolCallID: c.ID, ToolName: c.Name, Arguments: args, Parent: parent})
	res, err := tl.Run(ctx, cfg.Env, json.RawMessage(args))
	var ae *tool.ArgError
	switch {
	case errors.As(err, &ae):
		t.emit(protocol.ToolCallDecodeError{ToolCallID: c.ID, ToolName: c.Name, Error: ae.Error()})
		return tool.Result{Content: protocol.Text(ae.Error()), IsError: true}
	case err != nil:
		return cfg.Env.Redact(tool.Result{Content: protocol.Text(fmt.Sprintf("error: %s failed: %v", c.Name, err)), IsError: true})
	}
	// Keys the process holds never reach the model, the hooks, the
	// event stream or the log through a tool's output.
	res = cfg.Env.Redact(res)
	if cfg.Hooks != nil {
		if fb := cfg.Hooks.PostToolUse(ctx, c, res); fb != "" {
			extra = strings.TrimSpace(extra + "\n" + fb)
		}
	}
	if extra != "" {
		res.Content = append(append(protocol.Content{}, res.Content...), protocol.Part{Type: "text", Text: "\n[hook] " + extra})
	}
	return res
}

// passGate calls the turn's gate until it is done (see Gate) and records
// what the gate asks to.
func (t *turn) passGate(calls []chat.ToolCall, end bool) error {
	record, err := t.gateItems(calls, end)
	// A record that cannot be written is reported (session_error) and
	// does not stop the turn, as a snapshot that failed does not.
	_ = t.appendAll(record...)
	return err
}

// gateItems passes the gate and returns the items it asks to record.
func (t *turn) gateItems(calls []chat.ToolCall, end bool) ([]session.Item, error) {
	if t.gate == nil {
		return nil, nil
	}
	done, record, err := t.gate(calls, end)
	if done || err != nil {
		t.gate = nil
	}
	return record, err
}

// end records the turn's terminal item and emits its terminal event.
func (t *turn) end(kind session.TerminalKind, msg string) (Outcome, error) {
	return t.endWith(kind, msg, nil)
}

// endWith is end with an explicit terminal event (nil = the usual one).
func (t *turn) endWith(kind session.TerminalKind, msg string, ev protocol.Event) (Outcome, error) {
	// Nothing runs after this: a gate's error changes nothing here. What
	// the gate records goes with the terminal item, in one append.
	record, _ := t.gateItems(nil, true)
	out := Outcome{Kind: kind, Answer: msg, Steps: t.answered, Usage: t.usage, Cause: t.cause}
	if err := t.appendAll(append(record, &session.Terminal{Kind: kind, Message: msg})...); err != nil {
		return out, err
	}
	if ev != nil {
		t.emit(ev)
		return out, nil
	}
	switch kind {
	case session.Finished:
		t.emit(protocol.AgentFinished{Answer: msg})
	case session.MaxStepsExhausted:
		t.emit(protocol.MaxStepsExhausted{})
	case session.Interrupted:
		t.emit(protocol.AgentAborted{Reason: "interrupted"})
	case session.Aborted:
		t.emit(protocol.AgentAborted{Reason: msg})
	default:
		t.emit(protocol.TurnFailed{Error: msg})
	}
	return out, nil
}

// failureText is the user-facing text of a failed model request.
func failureText(err error) string {
	return "agent failed: " + err.Error()
}

func toolSpecs(r *tool.Registry) []llm.ToolSpec {
	if r == nil {
		return nil
	}
	tools := r.Tools()
	specs := make([]llm.ToolSpec, len(tools))
	for i, tl := range tools {
		specs[i] = llm.ToolSpec{Name: tl.Name, Description: tl.Description, Parameters: tl.Schema}
	}
	return specs
}

func toolNames(r *tool.Registry) []string {
	var names []string
	for _, tl := range r.Tools() {
		names = append(names, tl.Name)
	}
	return names
}
