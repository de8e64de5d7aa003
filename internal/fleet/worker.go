package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/workflow"
	"github.com/openseek/openseek/protocol"
)

// WorkerOptions configure a worker.
type WorkerOptions struct {
	// Name identifies the worker in task records (default host:pid).
	Name string
	// Concurrency is how many tasks it runs at once (default 1).
	Concurrency int
	// Engine is the template of every task's host: Dir is set to the
	// task's workspace and Model to the task's model when it names one.
	Engine engine.Options
	// WorkRoot holds the workspaces, one directory per task.
	WorkRoot string
	// Log receives one line per task start and end (nil = none).
	Log io.Writer
	// OnStart, when set, is called as a task's attempt starts.
	OnStart func(t *Task)
}

// Worker takes tasks from the queue and runs each in its own workspace
// with the engine, until its context ends.
type Worker struct {
	c    *Client
	opts WorkerOptions
	done atomic.Int64 // tasks this worker brought to a terminal state
}

// NewWorker returns a worker on c's queue.
func (c *Client) NewWorker(opts WorkerOptions) *Worker {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 1
	}
	if opts.Name == "" {
		host, _ := os.Hostname()
		opts.Name = host + ":" + strconv.Itoa(os.Getpid())
	}
	return &Worker{c: c, opts: opts}
}

// Finished is how many tasks this worker brought to a terminal state.
func (w *Worker) Finished() int64 { return w.done.Load() }

// Run takes and runs tasks until ctx ends. A task interrupted by the end
// of ctx goes back to the queue at once for another worker. A worker on
// the machine's embedded server that another process ran, which ended,
// runs the server itself (unless another process started it first) and
// carries on; its running tasks are not interrupted.
func (w *Worker) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if w.c.cfg.URL == "" {
		wg.Go(func() { w.keepServer(ctx) })
	}
	var cons jetstream.Consumer
	if err := retry(ctx, func() (err error) {
		cons, err = w.c.consumer(ctx)
		return err
	}); err != nil {
		return err
	}
	for range w.opts.Concurrency {
		wg.Go(func() { w.loop(ctx, cons) })
	}
	<-ctx.Done()
	return nil
}

// keepServer starts the machine's embedded server in this process when
// the one the worker used went away (the process that ran it ended) and
// no other process started it again within half a second.
func (w *Worker) keepServer(ctx context.Context) {
	for lost := time.Duration(0); ctx.Err() == nil; sleep(ctx, 100*time.Millisecond) {
		if w.c.Embedded() != nil {
			return
		}
		if w.c.nc.IsConnected() {
			lost = 0
			continue
		}
		if lost += 100 * time.Millisecond; lost < 500*time.Millisecond {
			continue
		}
		lost = 0
		ok, err := w.c.takeOver()
		switch {
		case ok:
			w.logf("the process running the embedded NATS server ended; this worker runs it now (%s)", w.c.cfg.Dir)
			return
		case err != nil:
			w.logf("start the embedded NATS server: %v (trying again)", err)
		}
	}
}

func (w *Worker) loop(ctx context.Context, cons jetstream.Consumer) {
	for ctx.Err() == nil {
		fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		msg, err := cons.Next(jetstream.FetchContext(fctx))
		cancel()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
				// The server is away or restarting: wait, then ask again.
				sleep(ctx, 250*time.Millisecond)
			}
			continue
		}
		w.handle(ctx, msg)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func (w *Worker) logf(format string, args ...any) {
	if w.opts.Log != nil {
		fmt.Fprintf(w.opts.Log, "worker %s: %s\n", w.opts.Name, fmt.Sprintf(format, args...))
	}
}

// handle runs one delivery of a task id.
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg) {
	id := string(msg.Data())
	// A worker killed after publishing the task's end, before recording
	// it: its end stands.
	if ended, err := w.c.settleEnd(ctx, id); err == nil && ended != nil {
		w.logf("task %s: %s (its end recorded for an earlier attempt)", id, ended.State)
		if ended.Parent != "" {
			w.c.settle(ctx, ended.Parent, w.judge)
		}
		_ = msg.Ack()
		return
	}
	// Claim the task, unless its record says another worker runs it and
	// that worker answers that it does (its server restarted, a heartbeat
	// came late; this worker, in another slot): the task stays with it,
	// whose heartbeats keep the message.
	var prev *Task
	probed := false
	claim := func(t *Task) error {
		cp := *t
		prev = &cp
		if t.State.Terminal() {
			return errSkip
		}
		if t.State == Running && !probed {
			return errRunning
		}
		t.State = Running
		t.Attempts++
		t.Worker = w.opts.Name
		t.StartedAt = time.Now().UTC()
		if t.Session == "" {
			t.Session = "task-" + t.ID
		}
		return nil
	}
	t, err := w.c.update(ctx, id, claim)
	if errors.Is(err, errRunning) {
		if w.c.held(ctx, id) {
			w.logf("task %s: left to worker %s, which is running it", id, prev.Worker)
			return
		}
		probed = true
		t, err = w.c.update(ctx, id, claim)
	}
	switch {
	case errors.Is(err, errSkip):
		// Finished or cancelled meanwhile: nothing to run. A run whose
		// worker died while settling its best-of-N parent settles it now.
		if t != nil && t.Parent != "" && (t.State == Completed || t.State == Failed) {
			w.c.settle(ctx, t.Parent, w.judge)
		}
		_ = msg.Ack()
		return
	case errors.Is(err, ErrNotFound) || errors.Is(err, ErrMalformed):
		w.logf("dropping queue entry %q: %v", id, err)
		_ = msg.Term()
		return
	case err != nil:
		w.logf("task %s: %v (left for redelivery)", id, err)
		return
	}
	attempt := t.Attempts
	w.logf("task %s: attempt %d started", id, attempt)
	if w.opts.OnStart != nil {
		w.opts.OnStart(t)
	}
	if t.Parent != "" {
		_, _ = w.c.update(ctx, t.Parent, func(p *Task) error {
			if p.State != Queued {
				return errSkip
			}
			p.State, p.StartedAt = Running, time.Now().UTC()
			return nil
		})
	}

	// Hold the task while it runs: heartbeats keep the message ours, a
	// worker the task is delivered to again hears that this one runs it,
	// and a cancelled record stops the run.
	rctx, stop := context.WithCancel(ctx)
	var hold sync.WaitGroup
	hold.Go(func() { w.heartbeat(rctx, msg) })
	hold.Go(func() { w.watchCancel(rctx, id, stop) })
	sub, serr := w.c.nc.Subscribe(heldSubject(id), func(m *nats.Msg) { _ = m.Respond([]byte(w.opts.Name)) })
	res, err := w.execute(rctx, t)
	if serr == nil {
		_ = sub.Unsubscribe()
	}
	stop()
	hold.Wait()

	// The end is recorded even if this worker is asked to stop meanwhile,
	// but it holds the worker up for half a second at most then.
	ectx, cancel := outlive(ctx, 500*time.Millisecond, 30*time.Second)
	defer cancel()
	if ctx.Err() != nil {
		// This worker is stopping: give the task back now.
		_, _ = w.c.update(ectx, id, func(cur *Task) error {
			if cur.State != Running || cur.Attempts != attempt || cur.Worker != w.opts.Name {
				return errSkip
			}
			cur.State = Queued
			return nil
		})
		_ = msg.Nak()
		w.logf("task %s: given back (worker stopping)", id)
		return
	}
	if errors.Is(err, session.ErrBusy) {
		// The session is open in a live process on this machine (the
		// attempt before, whose worker the probe did not reach): the task
		// is that worker's, and its record says so again.
		w.logf("task %s: its session is open in another process; left to it", id)
		_, _ = w.c.update(ectx, id, func(cur *Task) error {
			if prev == nil || cur.State != Running || cur.Attempts != attempt || cur.Worker != w.opts.Name {
				return errSkip
			}
			cur.State, cur.Attempts, cur.Worker, cur.StartedAt = prev.State, prev.Attempts, prev.Worker, prev.StartedAt
			return nil
		})
		if prev == nil || prev.State != Running {
			// Its holder is letting it go (a worker stopping): again soon.
			_ = msg.NakWithDelay(time.Second)
		}
		return
	}
	if err != nil {
		w.logf("task %s: %v (left for redelivery)", id, err)
		_ = msg.NakWithDelay(time.Second)
		return
	}
	cur, err := w.c.Get(ectx, id)
	if err != nil {
		w.logf("task %s: %v (left for redelivery)", id, err)
		return
	}
	if cur.State != Running || cur.Attempts != attempt || cur.Worker != w.opts.Name {
		// Cancelled, or another worker took it over.
		_ = msg.DoubleAck(ectx)
		return
	}
	res(cur)
	cur.FinishedAt = time.Now().UTC()
	final, won, err := w.c.end(ectx, cur)
	if err != nil {
		w.logf("task %s: %v (left for redelivery)", id, err)
		return
	}
	if won {
		w.done.Add(1)
		w.logf("task %s: %s", id, final.State)
	}
	if final.Parent != "" {
		w.c.settle(ectx, final.Parent, w.judge)
	}
	_ = msg.DoubleAck(ectx)
}

// errRunning, from a claim's change, means the record says a worker runs
// the task: ask whether it lives before taking the task over.
var errRunning = errors.New("running")

// outlive is a context for recording what a run did: it ends grace
// after ctx does, or after limit.
func outlive(ctx context.Context, grace, limit time.Duration) (context.Context, context.CancelFunc) {
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return ectx, func() { stop(); cancel() }
}

// heldSubject is where the worker running task id answers that it does.
func heldSubject(id string) string { return "openseek.held." + id }

// held reports whether a live worker runs task id: that worker answers on
// heldSubject. One whose server is restarting gets a few seconds (a third
// of the ack wait, if longer) to reconnect and answer.
func (c *Client) held(ctx context.Context, id string) bool {
	deadline := time.Now().Add(max(c.cfg.AckWait/3, 3*time.Second))
	for ctx.Err() == nil && time.Now().Before(deadline) {
		rctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		_, err := c.nc.RequestWithContext(rctx, heldSubject(id), nil)
		cancel()
		if err == nil {
			return true
		}
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
			sleep(ctx, 200*time.Millisecond) // no responders, or reconnecting
		}
	}
	return false
}

// judge is the judging model of best-of-N tasks asked with --judge: the
// workers' engine, model and key, reading one of the runs' workspaces.
func (w *Worker) judge(ctx context.Context, task string, cands []*Task) (*Task, string, float64, error) {
	eo := w.opts.Engine
	eo.Dir = w.opts.WorkRoot
	for _, c := range cands {
		if st, err := os.Stat(c.Workspace); err == nil && st.IsDir() {
			eo.Dir = c.Workspace
			break
		}
	}
	if m := cands[0].Model; m != "" {
		eo.Model = m
	}
	return EngineJudge(eo)(ctx, task, cands)
}

// heartbeat tells the server the task is in progress, three times per
// ack wait, so no other worker gets it while this one lives.
func (w *Worker) heartbeat(ctx context.Context, msg jetstream.Msg) {
	tick := time.NewTicker(w.c.cfg.AckWait / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			_ = msg.InProgress()
		}
	}
}

// watchCancel calls stop when the task's record turns cancelled (or
// ends otherwise: another attempt's end was applied). It listens to the
// record's writes as they are published, on a plain subscription, which
// leaves nothing on the server to remove afterwards (a KV watcher's
// consumer is deleted by a request that waits for a server that may be
// away, holding up a worker told to stop). A terminal value is only ever
// written after the task's end marker (see end), so one seen published is
// the task's end even if that very write is retried.
func (w *Worker) watchCancel(ctx context.Context, id string, stop context.CancelFunc) {
	sub, err := w.c.nc.Subscribe("$KV."+TasksBucket+"."+id, func(m *nats.Msg) {
		if stateOf(m.Data).Terminal() {
			stop()
		}
	})
	if err != nil {
		return
	}
	<-ctx.Done()
	_ = sub.Unsubscribe()
}

// execute runs the task's attempt and returns how to record its end, or
// why the attempt could not run and the task goes back: its session is
// open in another live process (session.ErrBusy), NATS is away.
func (w *Worker) execute(ctx context.Context, t *Task) (func(*Task), error) {
	fail := func(msg string) (func(*Task), error) {
		return func(cur *Task) { cur.State, cur.Error = Failed, msg }, nil
	}
	if !t.Deadline.IsZero() && time.Now().After(t.Deadline) {
		return fail("stopped: the deadline " + t.Deadline.Format(time.RFC3339) + " passed")
	}
	dir, base, resumed, err := workspace(ctx, w.opts.WorkRoot, t)
	if err != nil {
		return fail(err.Error())
	}
	if _, err := w.c.update(ctx, t.ID, func(cur *Task) error {
		if cur.Attempts != t.Attempts {
			return errSkip
		}
		cur.Workspace, cur.Base = dir, base
		return nil
	}); err != nil && !errors.Is(err, errSkip) {
		w.logf("task %s: record its workspace: %v (the end records it)", t.ID, err)
	}

	opts := w.opts.Engine
	opts.Dir = dir
	if t.Model != "" {
		opts.Model = t.Model
	}
	tctx := ctx
	if !t.Deadline.IsZero() {
		var cancel context.CancelFunc
		tctx, cancel = context.WithDeadline(ctx, t.Deadline)
		defer cancel()
	}
	// Stream the session's events into the task's subject, and its log
	// into the task's session subject so another worker can restore it.
	subj := eventSubject(t.ID)
	attempt := strconv.Itoa(t.Attempts)
	prompt := t.Prompt
	if resumed {
		prompt = "This task was interrupted (its worker stopped) and is resumed in the same workspace and session. Check what is already done, then finish it.\n\nThe task: " + t.Prompt
	}
	logs := &logSync{ctx: ctx, c: w.c, id: t.ID, attempt: t.Attempts}
	var (
		cmds      commandCount
		diff      string
		lines     int
		verifyOK  *bool
		verifyOut string
	)
	if t.Attempts > 1 {
		// A workspace made afresh (another machine, a --repo clone) gets
		// the session the earlier attempts published, and continues it.
		root := opts.SessionRoot
		if root == "" {
			root = ".openseek"
		}
		if !filepath.IsAbs(root) {
			root = filepath.Join(dir, root)
		}
		published, restored, err := w.c.restoreLog(ctx, t.ID, session.NewStore(root).Path(t.Session))
		if err != nil {
			// NATS is away: not the task's failure.
			return nil, err
		}
		logs.off = published
		if restored && !resumed {
			prompt = "This task was interrupted (its worker stopped) and is resumed on another worker: the same session, in a fresh workspace, so changes the earlier attempt made to files may be missing. Check the files, then finish the task.\n\nThe task: " + t.Prompt
		}
	}
	var (
		program func(context.Context, *engine.Host, *engine.Session) (agent.Outcome, error)
		printed string
	)
	if t.Workflow != "" {
		wf, err := taskWorkflow(t, dir, opts)
		if err != nil {
			return fail(err.Error())
		}
		program = func(ctx context.Context, host *engine.Host, sess *engine.Session) (agent.Outcome, error) {
			run := workflow.Run{Host: host, Session: sess}
			res, err := run.Exec(ctx, wf, t.Args)
			printed = res.Output
			if err == nil {
				err = res.Err
			}
			return res.Outcome, err
		}
	}
	tr, err := runTurn(tctx, turnSpec{
		Engine:  opts,
		Session: t.Session,
		Holder:  "openseek worker " + w.opts.Name,
		Prompt:  prompt,
		Run:     program,
		MaxCost: t.MaxCost,
		OnOpen:  logs.start,
		After: func(ctx context.Context, tr turnResult, check checkFunc) {
			if ctx.Err() != nil {
				return // stopping, or the deadline passed
			}
			diff, lines, _ = changes(context.WithoutCancel(ctx), dir, base)
			if t.Verify != "" && !tr.Over {
				ok, out := check(ctx, dir, t.Verify)
				verifyOK, verifyOut = &ok, out
			}
		},
		OnEntry: func(e engine.Entry) {
			cmds.add(e.Event)
			m := nats.NewMsg(subj)
			m.Header.Set(hdrAttempt, attempt)
			m.Data = e.Line
			_, _ = w.c.js.PublishMsgAsync(m)
		},
	})
	if errors.Is(err, session.ErrBusy) {
		return nil, err
	}
	if err != nil {
		return fail(err.Error())
	}
	logs.stop()
	select {
	case <-w.c.js.PublishAsyncComplete():
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
	}
	out, perr, spent, over := tr.Out, tr.Err, tr.Cost, tr.Over
	unpriced := tr.CostUnknown

	deadlinePassed := tctx.Err() != nil && ctx.Err() == nil
	if deadlinePassed {
		diff, lines, _ = changes(context.WithoutCancel(ctx), dir, base)
	}
	return func(cur *Task) {
		cur.Workspace, cur.Base = dir, base
		cur.CostUSD += spent
		cur.CostUnknown = cur.CostUnknown || unpriced
		cur.Diff, cur.ChangedLines, cur.VerifyOK = diff, lines, verifyOK
		cur.Commands, cur.FailedCommands = cmds.run, cmds.failed
		if t.Workflow != "" {
			// What the workflow printed is its report, a failed run's too.
			cur.Result = printed
		}
		switch {
		case over:
			cur.State, cur.Error = Failed, fmt.Sprintf("stopped: the cost budget $%g was reached ($%g spent this attempt)", t.MaxCost, spent)
		case deadlinePassed:
			cur.State, cur.Error = Failed, "stopped: the deadline "+t.Deadline.Format(time.RFC3339)+" passed"
		case perr != nil:
			cur.State, cur.Error = Failed, perr.Error()
		case !out.OK():
			cur.State, cur.Error = Failed, fmt.Sprintf("the turn ended %s: %s", out.Kind, out.Answer)
		case t.Workflow != "":
			// The program judged its own commands; only verify may differ.
			cur.State, cur.Error = Completed, ""
			if why := (&commandCount{}).failure(t.Verify, verifyOK, verifyOut); why != "" {
				cur.State, cur.Error = Failed, why
			}
		default:
			cur.State, cur.Result, cur.Error = Completed, out.Answer, ""
			if why := cmds.failure(t.Verify, verifyOK, verifyOut); why != "" {
				cur.State, cur.Error = Failed, why
			}
		}
	}, nil
}

// taskWorkflow is the workflow a task runs: the source it carries, or,
// for a task added without one (over the HTTP API), the workflow of that
// name the worker finds for the workspace dir — never a file named by
// the task, which would be read from the worker's machine.
func taskWorkflow(t *Task, dir string, opts engine.Options) (workflow.Workflow, error) {
	if t.Source != "" {
		return workflow.Workflow{Name: t.Workflow, Origin: "task", Path: t.Workflow, Code: t.Source}, nil
	}
	if strings.HasSuffix(t.Workflow, ".star") {
		return workflow.Workflow{}, fmt.Errorf("the task names the workflow file %s but carries no source: add it with openseek tasks add --workflow FILE.star, which sends the file", t.Workflow)
	}
	home := opts.Home
	if home == "" {
		home = os.Getenv("HOME")
	}
	return workflow.Find(workflow.Places{Workspace: dir, Home: home, TrustWorkspace: opts.TrustWorkspace}, t.Workflow)
}

// commandCount counts an attempt's shell commands and those that failed,
// from its session's events.
type commandCount struct {
	run, failed int
	last        string // the last failed command's answer
}

func (c *commandCount) add(ev protocol.Event) {
	if r, ok := ev.(protocol.ToolResult); ok && r.ToolName == "shell" {
		c.run++
		if r.IsError {
			c.failed++
			c.last = r.Content
		}
	}
}

// failure says why a turn that ended normally did not do the task: every
// command it ran failed, or the task's verify command failed; "" when
// neither.
func (c *commandCount) failure(command string, verifyOK *bool, verifyOut string) string {
	var why []string
	if c.run > 0 && c.failed == c.run {
		why = append(why, fmt.Sprintf("every command failed (%d of %d; the last answered: %s)", c.failed, c.run, cut(oneLine(c.last), 200)))
	}
	if verifyOK != nil && !*verifyOK {
		why = append(why, fmt.Sprintf("the verify command failed (%s): %s", command, cut(oneLine(verifyOut), 300)))
	}
	return strings.Join(why, "; ")
}

// oneLine folds text onto one line for an error message.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
