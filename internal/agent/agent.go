// Package agent is the turn loop: it asks the model for a response, runs
// the tools the model calls, records everything in the session log, and
// repeats until the model gives a plain final answer, calls finish, runs
// out of steps, fails, or is cancelled.
//
// Invariants:
//   - The session log is the only memory. Every model request is the
//     projection of the log (session.Session.Messages), so a killed process
//     resumes from exactly what was recorded.
//   - A tool runs only after the complete assistant message that asked for
//     it has been appended to the log; a provider retry never runs a tool
//     twice.
//   - Every turn ends with exactly one terminal item and one terminal event.
//   - The loop does not know which frontend listens: it emits typed
//     protocol events through Config.Emit.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
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
}

// Config is what a turn loop needs. The engine builds it.
type Config struct {
	Provider llm.Provider
	Model    string
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
}

// Outcome is how a turn ended.
type Outcome struct {
	Kind   session.TerminalKind
	Answer string // final answer, or the failure/abort reason
	Steps  int
	Usage  protocol.Usage
}

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

// Notify queues a runtime notice (a background job ended, …). It is
// folded into the running turn at its next step boundary, or into the next
// turn when idle.
func (a *Agent) Notify(text string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queue = append(a.queue, queued{kind: "notice", content: protocol.Text(text)})
}

// ErrBusy is returned by Turn when a turn is already running.
var ErrBusy = errors.New("a turn is already running")

// Turn runs one turn for the user's input. It returns an error only when
// the turn could not start or its record could not be written; how the
// turn ended is in the Outcome.
func (a *Agent) Turn(ctx context.Context, input protocol.Content, submissionID *string) (Outcome, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	if a.active {
		a.mu.Unlock()
		return Outcome{}, ErrBusy
	}
	a.active, a.cancel = true, cancel
	tools := a.cfg.Tools
	a.mu.Unlock()

	t := &turn{a: a, ctx: ctx, tools: tools}
	out, err := t.run(input, submissionID)

	a.mu.Lock()
	a.active, a.cancel = false, nil
	dropped := a.takeSteersLocked()
	a.mu.Unlock()
	for _, q := range dropped {
		a.cfg.Emit(protocol.SteerDropped{Content: q.content, SubmissionID: q.submissionID})
	}
	return out, err
}

// takeSteersLocked removes and returns the queued steers (not notices).
func (a *Agent) takeSteersLocked() []queued {
	var steers []queued
	kept := a.queue[:0]
	for _, q := range a.queue {
		if q.kind == "notice" {
			kept = append(kept, q)
		} else {
			steers = append(steers, q)
		}
	}
	a.queue = kept
	return steers
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
	a     *Agent
	ctx   context.Context
	steps int
	usage protocol.Usage
	tools *tool.Registry
	specs []llm.ToolSpec
}

func (t *turn) emit(e protocol.Event) { t.a.cfg.Emit(e) }

func (t *turn) append(item session.Item) error {
	if _, err := t.a.cfg.Log.Append(item); err != nil {
		t.emit(protocol.SessionError{Error: err.Error()})
		return err
	}
	return nil
}

func (t *turn) run(input protocol.Content, submissionID *string) (Outcome, error) {
	cfg := &t.a.cfg
	if err := t.append(&session.User{Content: input, SubmissionID: submissionID}); err != nil {
		return Outcome{}, fmt.Errorf("record the prompt: %w", err)
	}
	t.specs = toolSpecs(t.tools)
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
		t.steps++
		t.emit(protocol.AgentStep{Step: t.steps})

		resp, err := t.request()
		if err != nil {
			if t.ctx.Err() != nil {
				return t.end(session.Interrupted, "cancelled")
			}
			return t.end(session.Failed, failureText(err))
		}
		t.report(resp)

		if len(resp.ToolCalls) == 0 {
			if err := t.append(t.assistantItem(resp)); err != nil {
				return Outcome{}, err
			}
			// Steering that arrived while the model answered is not lost:
			// the turn goes on with it.
			if t.a.hasSteers() {
				continue
			}
			return t.end(session.Finished, resp.Content)
		}

		if err := t.append(t.assistantItem(resp)); err != nil {
			return Outcome{}, err
		}
		ctl, answer, err := t.runTools(resp.ToolCalls)
		if err != nil {
			return Outcome{}, err
		}
		switch {
		case t.ctx.Err() != nil:
			return t.end(session.Interrupted, "cancelled")
		case ctl == tool.Finish:
			return t.end(session.Finished, answer)
		case ctl == tool.Abort:
			return t.end(session.Aborted, answer)
		}
	}
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
func (t *turn) request() (*llm.Response, error) {
	cfg := &t.a.cfg
	req := llm.Request{
		Model:    cfg.Model,
		Messages: cfg.Log.Session().Messages(),
		Tools:    t.specs,
		Thinking: cfg.Thinking,
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

// report emits the complete message events and usage of a response.
func (t *turn) report(resp *llm.Response) {
	if resp.Reasoning != nil && *resp.Reasoning != "" {
		t.emit(protocol.ReasoningMessage{Content: *resp.Reasoning})
	}
	if resp.Content != "" {
		t.emit(protocol.AssistantMessage{Content: resp.Content})
	}
	t.usage = t.usage.Add(resp.Usage)
	t.emit(protocol.UsageEvent{Usage: resp.Usage})
}

func (t *turn) assistantItem(resp *llm.Response) *session.Assistant {
	u := resp.Usage
	return &session.Assistant{
		Content:   resp.Content,
		ToolCalls: append([]chat.ToolCall{}, resp.ToolCalls...),
		Reasoning: resp.Reasoning,
		Usage:     &u,
	}
}

// runTools runs every call of one assistant message in order and records
// each result. It returns the strongest control a tool asked for.
func (t *turn) runTools(calls []chat.ToolCall) (tool.Control, string, error) {
	ctl, answer := tool.Respond, ""
	var notices []string
	for _, call := range calls {
		var res tool.Result
		if t.ctx.Err() != nil {
			res = tool.Result{Content: protocol.Text("error: not run: the turn was cancelled"), IsError: true}
		} else {
			res = t.call(call)
		}
		item := &session.ToolResult{
			ToolCallID: call.ID,
			ToolName:   call.Name,
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
			return ctl, "", err
		}
		t.emit(protocol.ToolResult{ToolCallID: call.ID, ToolName: call.Name, IsError: res.IsError, Content: res.Content.Text(), Brief: brief})
		notices = append(notices, res.Notices...)
		if res.Control > ctl && !res.IsError {
			ctl, answer = res.Control, res.Content.Text()
		}
	}
	for _, n := range notices {
		if err := t.append(&session.Notice{Content: n}); err != nil {
			return ctl, "", err
		}
	}
	return ctl, answer, nil
}

// call runs one tool call. Unknown tools, undecodable arguments and panics
// become error results the model can read; the turn goes on.
func (t *turn) call(c chat.ToolCall) (res tool.Result) {
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
			_ = debug.Stack()
		}
	}()
	res, err := tl.Run(t.ctx, cfg.Env, json.RawMessage(args))
	var ae *tool.ArgError
	switch {
	case errors.As(err, &ae):
		t.emit(protocol.ToolCallDecodeError{ToolCallID: c.ID, ToolName: c.Name, Error: ae.Error()})
		return tool.Result{Content: protocol.Text(ae.Error()), IsError: true}
	case err != nil:
		return tool.Result{Content: protocol.Text(fmt.Sprintf("error: %s failed: %v", c.Name, err)), IsError: true}
	}
	return res
}

// end records the turn's terminal item and emits its terminal event.
func (t *turn) end(kind session.TerminalKind, msg string) (Outcome, error) {
	out := Outcome{Kind: kind, Answer: msg, Steps: t.steps, Usage: t.usage}
	if err := t.append(&session.Terminal{Kind: kind, Message: msg}); err != nil {
		return out, err
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
