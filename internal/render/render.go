// Package render turns the event stream into readable text for a person
// at a terminal: the answer streams as it is written, tool calls and their
// results are summarised on one line each (a running call shows its
// elapsed time on a terminal, a failed command its output), the build
// check shows as "checking: <command>" until its result replaces it, every warning
// the event stream carries is printed whole, and the turn ends with a
// short account of steps, tokens and cost. It is a frontend: it only
// reads events.
package render

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/openseek/openseek/protocol"
)

// Text renders events to out (the answer) and info (everything else).
type Text struct {
	mu      sync.Mutex
	out     io.Writer
	info    io.Writer
	opts    Options
	inText  bool // the last thing written was streamed answer text
	inThink bool
	said    string                  // the last complete assistant message
	state   string                  // how the turn ended, for the closing line
	usage   protocol.Usage          // the turn so far, for the live line
	context *protocol.ContextHealth // the latest, for the closing line

	running  *runningCall // the tool call or check shown live, if any
	stopLive chan struct{}
	checking time.Time // when the running build check started
	// children are the running calls that a script made, shown under it.
	children map[string]bool
}

// Options are how a Text renderer may draw.
type Options struct {
	// Color allows ANSI styling on info (its stream is a terminal, and
	// neither NO_COLOR nor TERM=dumb says otherwise).
	Color bool
	// Live shows the running tool call with its elapsed time and the
	// turn's tokens, cache-hit ratio and cost so far, redrawn in place
	// (info is a terminal).
	Live bool
	// Cost prices usage for the live line; nil shows no cost.
	Cost CostFunc
}

type runningCall struct {
	label string
	start time.Time
}

// NewText returns a renderer writing the answer to out and progress to
// info. The closing line of a turn comes from its turn_summary event
// (steps, tokens with sub-agents, cost or "cost unknown").
func NewText(out, info io.Writer, o Options) *Text {
	return &Text{out: out, info: info, opts: o}
}

// ColorAllowed reports whether ANSI styling may go to a stream that is a
// terminal (isTerminal) given the environment: NO_COLOR set (to anything)
// or TERM=dumb turn it off.
func ColorAllowed(isTerminal bool, getenv func(string) string) bool {
	return isTerminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// Emit renders one event. It is safe for concurrent use.
func (t *Text) Emit(e protocol.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e.(type) {
	case protocol.ToolStarted, protocol.VerifyStarted:
	default:
		t.clearLive()
	}
	if w, ok := protocol.Warning(e); ok {
		if _, notice := e.(protocol.BackgroundNotice); !notice {
			t.endThink()
			t.breakLine()
			fmt.Fprintf(t.info, "%s %s\n", t.style("33", "warning:"), w)
			return
		}
	}
	switch e := e.(type) {
	case protocol.SessionStarted:
		fmt.Fprintf(t.info, "session %s\n", e.Session)
	case protocol.WorkspaceCreated:
		fmt.Fprintf(t.info, "created workspace %s\n", e.Dir)
	case protocol.ReasoningDelta:
		if !t.inThink {
			t.breakLine()
			if t.opts.Color {
				fmt.Fprint(t.info, "\x1b[2m")
			}
			fmt.Fprint(t.info, "thinking: ")
			t.inThink = true
		}
		fmt.Fprint(t.info, e.Content)
	case protocol.AssistantDelta:
		t.endThink()
		t.inText = true
		fmt.Fprint(t.out, e.Content)
	case protocol.AssistantMessage:
		t.endThink()
		t.breakLine()
		t.said = e.Content
	case protocol.ToolStarted:
		t.endThink()
		t.breakLine()
		if e.Parent != "" {
			if t.children == nil {
				t.children = map[string]bool{}
			}
			t.children[e.ToolCallID] = true
		}
		if t.opts.Live {
			t.startLive(e.ToolName + " " + oneLine(e.Arguments, 80))
		}
	case protocol.VerifyStarted:
		t.endThink()
		t.breakLine()
		t.checking = time.Now()
		if t.opts.Live {
			t.startLive("checking: " + oneLine(e.Command, 100))
		} else {
			fmt.Fprintf(t.info, "checking: %s\n", oneLine(e.Command, 100))
		}
	case protocol.VerifyResult:
		t.endThink()
		t.breakLine()
		t.verifyResult(e)
	case protocol.ToolResult:
		t.endThink()
		t.breakLine()
		mark := "✓"
		if e.IsError {
			mark = "✗"
		}
		label := e.ToolName
		if e.Brief != nil && *e.Brief != "" {
			label = *e.Brief
		}
		indent := ""
		if t.children[e.ToolCallID] {
			delete(t.children, e.ToolCallID)
			indent = "  ↳ "
		}
		fmt.Fprintf(t.info, "%s%s %s\n", indent, t.style(map[bool]string{false: "32", true: "31"}[e.IsError], mark), oneLine(label, 100))
		if e.IsError {
			fmt.Fprintf(t.info, "  %s\n", tailLines(ForPeople(e.Content), 20))
		}
	case protocol.ToolCallDecodeError:
		t.breakLine()
		fmt.Fprintf(t.info, "✗ %s: %s\n", e.ToolName, oneLine(e.Error, 200))
	case protocol.SteerApplied:
		fmt.Fprintf(t.info, "» %s\n", oneLine(e.Content.Text(), 200))
	case protocol.BackgroundNotice:
		t.endThink()
		t.breakLine()
		fmt.Fprintf(t.info, "» %s\n", e.Content)
	case protocol.UsageEvent:
		t.usage = t.usage.Add(e.Usage)
	case protocol.AgentFinished:
		t.endThink()
		// An answer given through the finish tool was not streamed.
		if e.Answer != "" && e.Answer != t.said {
			t.breakLine()
			fmt.Fprint(t.out, e.Answer)
			t.inText = true
		}
		t.breakLine()
		t.state = "done"
	case protocol.TurnFailed:
		t.breakLine()
		fmt.Fprintf(t.info, "%s %s\n", t.style("31", "failed:"), e.Error)
		t.state = "failed"
	case protocol.AgentAborted:
		t.breakLine()
		t.state = "stopped: " + e.Reason
	case protocol.ContextYield:
		t.breakLine()
		t.state = "checkpointed at the context ceiling"
	case protocol.TurnSummary:
		t.endThink()
		t.breakLine()
		state := t.state
		if state == "" {
			state = e.Outcome
		}
		cost := CostText(0, false)
		if e.CostUSD != nil {
			cost = CostText(*e.CostUSD, true)
		}
		ctx := ""
		if t.context != nil {
			ctx = " · " + ContextLine(*t.context)
		}
		fmt.Fprintf(t.info, "— %s · %s · %s · %s · %s%s\n", state, Count(e.Steps, "step"), UsageLine(e.Usage, nil), cost, time.Duration(e.DurationMs)*time.Millisecond, ctx)
		t.state, t.usage = "", protocol.Usage{}
	case protocol.AutoCompactionStarted:
		fmt.Fprintf(t.info, "summarising events %d..%d to stay within the context window\n", e.FromSequence, e.ToSequence)
	case protocol.CompactionFailed:
		fmt.Fprintf(t.info, "compaction failed: %s\n", e.Error)
	case protocol.ContextHealth:
		t.context = &e
	case protocol.CompactionReport:
		t.endThink()
		t.breakLine()
		fmt.Fprintf(t.info, "» %s\n", CompactionText(e))
	case protocol.MaxStepsExhausted:
		t.breakLine()
		t.state = "stopped: the step limit was reached"
	}
}

// Close stops redrawing a running call.
func (t *Text) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clearLive()
}

// style wraps s in an ANSI colour when colour is allowed.
func (t *Text) style(code, s string) string {
	if !t.opts.Color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// verifyResult replaces "checking: …" with how the check ended, and
// shows the tail of a failure's output.
func (t *Text) verifyResult(e protocol.VerifyResult) {
	took := ""
	if !t.checking.IsZero() {
		took = fmt.Sprintf(" (%s)", time.Since(t.checking).Round(100*time.Millisecond))
		t.checking = time.Time{}
	}
	mark := t.style("32", "✓")
	if !e.OK {
		mark = t.style("31", "✗")
	}
	fmt.Fprintf(t.info, "%s check %s: %s%s\n", mark, e.Outcome(), oneLine(e.Command, 100), took)
	if !e.OK && strings.TrimSpace(e.Output) != "" {
		fmt.Fprintf(t.info, "  %s\n", tailLines(e.Output, 20))
	}
}

// startLive shows a running call or check and redraws its elapsed time
// every second until the next event.
func (t *Text) startLive(label string) {
	t.clearLive()
	t.running = &runningCall{label: label, start: time.Now()}
	t.drawLive()
	stop := make(chan struct{})
	t.stopLive = stop
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				t.mu.Lock()
				if t.stopLive == stop {
					t.drawLive()
				}
				t.mu.Unlock()
			}
		}
	}()
}

func (t *Text) drawLive() {
	if t.running == nil {
		return
	}
	secs := int(time.Since(t.running.start).Seconds())
	status := ""
	if u := t.usage; u.PromptTokens > 0 {
		status = fmt.Sprintf(" · %d tokens, %.0f%% cached", u.PromptTokens+u.CompletionTokens, 100*float64(u.PromptCacheHitTokens)/float64(u.PromptTokens))
		if t.opts.Cost != nil {
			if usd, ok := t.opts.Cost(u); ok {
				status += fmt.Sprintf(", $%.4f", usd)
			}
		}
	}
	fmt.Fprintf(t.info, "\r\x1b[K⋯ %s (%ds)%s", t.running.label, secs, status)
}

// clearLive erases the running call's line.
func (t *Text) clearLive() {
	if t.running == nil {
		return
	}
	close(t.stopLive)
	t.running, t.stopLive = nil, nil
	fmt.Fprint(t.info, "\r\x1b[K")
}

// tailLines is the last n lines of s, indented, saying how many came
// before.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	head := ""
	if len(lines) > n {
		head = fmt.Sprintf("… %d lines before\n  ", len(lines)-n)
		lines = lines[len(lines)-n:]
	}
	return head + strings.Join(lines, "\n  ")
}

func (t *Text) endThink() {
	if t.inThink {
		if t.opts.Color {
			fmt.Fprint(t.info, "\x1b[0m")
		}
		fmt.Fprintln(t.info)
		t.inThink = false
	}
}

func (t *Text) breakLine() {
	if t.inText {
		fmt.Fprintln(t.out)
		t.inText = false
	}
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
