// Package render turns the event stream into readable text for a person
// at a terminal: the answer streams as it is written, tool calls and their
// results are summarised on one line each, and the turn ends with a short
// account of steps and tokens. It is a frontend: it only reads events.
package render

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/openseek/openseek/protocol"
)

// Text renders events to out (the answer) and info (everything else).
type Text struct {
	mu      sync.Mutex
	out     io.Writer
	info    io.Writer
	inText  bool // the last thing written was streamed answer text
	inThink bool
	said    string // the last complete assistant message
	usage   protocol.Usage
	steps   int
	cost    CostFunc
}

// NewText returns a renderer writing the answer to out and progress to
// info; cost, when set, prices the turn's usage in the closing line.
func NewText(out, info io.Writer, cost CostFunc) *Text {
	return &Text{out: out, info: info, cost: cost}
}

// Emit renders one event. It is safe for concurrent use.
func (t *Text) Emit(e protocol.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e := e.(type) {
	case protocol.SessionStarted:
		fmt.Fprintf(t.info, "session %s\n", e.Session)
	case protocol.WorkspaceCreated:
		fmt.Fprintf(t.info, "created workspace %s\n", e.Dir)
	case protocol.AgentStep:
		t.steps = e.Step
	case protocol.ReasoningDelta:
		if !t.inThink {
			t.breakLine()
			fmt.Fprint(t.info, "\x1b[2mthinking: ")
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
	case protocol.StreamRetry:
		t.breakLine()
		fmt.Fprintf(t.info, "retrying (attempt %d of %d): %s\n", e.Attempt, e.MaxAttempts, e.Reason)
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
		fmt.Fprintf(t.info, "%s %s\n", mark, oneLine(label, 100))
		if e.IsError {
			fmt.Fprintf(t.info, "  %s\n", oneLine(e.Content, 200))
		}
	case protocol.ToolCallDecodeError:
		t.breakLine()
		fmt.Fprintf(t.info, "✗ %s: %s\n", e.ToolName, oneLine(e.Error, 200))
	case protocol.SteerApplied:
		fmt.Fprintf(t.info, "» %s\n", oneLine(e.Content.Text(), 200))
	case protocol.BackgroundNotice:
		fmt.Fprintf(t.info, "» %s\n", oneLine(e.Content, 200))
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
		t.summary("done")
	case protocol.TurnFailed:
		t.breakLine()
		fmt.Fprintf(t.info, "failed: %s\n", e.Error)
		t.summary("failed")
	case protocol.AgentAborted:
		t.breakLine()
		t.summary("stopped: " + e.Reason)
	case protocol.ContextYield:
		t.breakLine()
		t.summary("checkpointed at the context ceiling")
	case protocol.AutoCompactionStarted:
		fmt.Fprintf(t.info, "summarising events %d..%d to stay within the context window\n", e.FromSequence, e.ToSequence)
	case protocol.CompactionFinished:
		fmt.Fprintf(t.info, "compacted events %d..%d\n", e.FromSequence, e.ToSequence)
	case protocol.CompactionFailed:
		fmt.Fprintf(t.info, "compaction failed: %s\n", e.Error)
	case protocol.MaxStepsExhausted:
		t.breakLine()
		t.summary("stopped: the step limit was reached")
	case protocol.SessionError:
		t.breakLine()
		fmt.Fprintf(t.info, "session error: %s\n", e.Error)
	}
}

func (t *Text) summary(state string) {
	fmt.Fprintf(t.info, "— %s · %d steps · %s\n", state, t.steps, UsageLine(t.usage, t.cost))
}

func (t *Text) endThink() {
	if t.inThink {
		fmt.Fprint(t.info, "\x1b[0m\n")
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
