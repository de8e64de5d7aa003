package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// CostFunc prices a usage in USD; ok is false when the price is unknown.
type CostFunc func(protocol.Usage) (usd float64, ok bool)

// Transcript writes a readable account of a session: prompts, answers,
// tool calls and their results, notices, summaries and how each turn
// ended, then the token totals, cache-hit ratio and cost. children are
// the session's sub-agent sessions: their tokens count in the totals.
func Transcript(w io.Writer, s *session.Session, cost CostFunc, children ...*session.Session) {
	fmt.Fprintf(w, "session %s · %d events\n", s.ID, len(s.Events))
	for _, e := range s.Events {
		when := ""
		if e.TS > 0 {
			when = time.UnixMilli(e.TS).Local().Format("15:04:05") + " "
		}
		prefix := fmt.Sprintf("%4d %s", e.Sequence, when)
		switch it := e.Item.(type) {
		case *session.User:
			fmt.Fprintf(w, "\n%s▶ user: %s\n", prefix, indent(it.Content.Text()))
		case *session.Assistant:
			if it.Reasoning != nil && *it.Reasoning != "" {
				fmt.Fprintf(w, "%s  (thinking) %s\n", prefix, clipLines(*it.Reasoning, 3))
			}
			if it.Content != "" {
				fmt.Fprintf(w, "%s◆ %s\n", prefix, indent(it.Content))
			}
			for _, c := range it.ToolCalls {
				fmt.Fprintf(w, "%s→ %s %s\n", prefix, c.Name, oneLine(c.Arguments, 160))
			}
		case *session.ToolResult:
			mark := "←"
			if it.IsError {
				mark = "✗"
			}
			fmt.Fprintf(w, "%s%s %s: %s\n", prefix, mark, it.ToolName, clipLines(it.Content.Text(), 6))
		case *session.Notice:
			text := it.Content
			if ev, ok := session.ParseApproval(text); ok {
				text = session.DescribeApproval(ev)
			}
			fmt.Fprintf(w, "%s» %s\n", prefix, clipLines(text, 4))
		case *session.Summary:
			fmt.Fprintf(w, "%s≡ summary of events %d..%d:\n%s\n", prefix, it.From, it.To, indentAll(it.Content))
		case *session.Terminal:
			msg := it.Message
			if msg != "" {
				msg = ": " + oneLine(msg, 200)
			}
			fmt.Fprintf(w, "%s■ %s%s\n", prefix, it.Kind, msg)
		}
	}
	fmt.Fprintln(w)
	total := s.Usage()
	if len(children) > 0 {
		var sub protocol.Usage
		for _, c := range children {
			sub = sub.Add(c.Usage())
		}
		fmt.Fprintf(w, "sub-agents (%d sessions): %s\n", len(children), UsageLine(sub, nil))
		total = total.Add(sub)
	}
	line := UsageLine(total, cost)
	if cost == nil {
		line += " · cost unknown"
	} else if _, ok := cost(total); !ok {
		line += " · cost unknown"
	}
	fmt.Fprintln(w, line)
}

// UsageLine is the one-line account of tokens, cache hits and cost.
func UsageLine(u protocol.Usage, cost CostFunc) string {
	ratio := 0.0
	if u.PromptTokens > 0 {
		ratio = 100 * float64(u.PromptCacheHitTokens) / float64(u.PromptTokens)
	}
	line := fmt.Sprintf("tokens: %d in (%.0f%% cache hits), %d out", u.PromptTokens, ratio, u.CompletionTokens)
	if cost != nil {
		if usd, ok := cost(u); ok {
			line += fmt.Sprintf(" · cost $%.4f", usd)
		}
	}
	return line
}

func indent(s string) string { return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n      ") }

func indentAll(s string) string { return "      " + indent(s) }

// clipLines keeps the first n lines of s, saying how many were left out.
func clipLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return indent(strings.Join(lines, "\n"))
	}
	return indent(strings.Join(lines[:n], "\n")) + fmt.Sprintf("\n      … %d more lines", len(lines)-n)
}
