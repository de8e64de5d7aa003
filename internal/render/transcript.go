package render

import (
	"encoding/json"
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
// ended, then the token totals, cache-hit ratio and cost (as recorded
// with each response: session.Session.Cost). children are the session's
// sub-agent sessions: their tokens and costs count in the totals.
func Transcript(w io.Writer, s *session.Session, children ...*session.Session) {
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
				fmt.Fprintf(w, "%s→ %s %s\n", prefix, c.Name, oneLine(ReadableArgs(c.Arguments), 160))
			}
		case *session.ToolResult:
			mark := "←"
			if it.IsError {
				mark = "✗"
			}
			if it.Parent != "" {
				// A call a script made: under the script's call, with its
				// arguments (the model's calls have theirs on the → line).
				fmt.Fprintf(w, "%s  ↳ %s %s %s: %s\n", prefix, mark, it.ToolName, oneLine(ReadableArgs(it.Arguments), 120), clipLines(ForPeople(it.Content.Text()), 3))
				continue
			}
			fmt.Fprintf(w, "%s%s %s: %s\n", prefix, mark, it.ToolName, clipLines(ForPeople(it.Content.Text()), 6))
		case *session.Notice:
			text := it.Content
			if ev, ok := session.ParseApproval(text); ok {
				text = session.DescribeApproval(ev)
			} else if session.IsMarker(text) && !strings.HasPrefix(text, session.CompactionNotePrefix) {
				continue // snapshot and rewind bookkeeping (rewind --list shows the turns)
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
	usd, known := s.Cost()
	if len(children) > 0 {
		var sub protocol.Usage
		subUSD, subKnown := 0.0, true
		for _, c := range children {
			sub = sub.Add(c.Usage())
			cu, ck := c.Cost()
			subUSD, subKnown = subUSD+cu, subKnown && ck
		}
		fmt.Fprintf(w, "sub-agents (%d sessions): %s · %s\n", len(children), UsageLine(sub, nil), CostText(subUSD, subKnown))
		total = total.Add(sub)
		usd, known = usd+subUSD, known && subKnown
	}
	fmt.Fprintln(w, UsageLine(total, nil)+" · "+CostText(usd, known))
}

// ReadableArgs is a tool call's JSON arguments as a person reads them:
// escapes a model or an encoder chose (\u003e for >, \u0026 for &) are
// written as the characters they stand for. Arguments that are not JSON
// are shown as they are.
func ReadableArgs(args string) string {
	var v any
	d := json.NewDecoder(strings.NewReader(args))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return args
	}
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return args
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Count is n with its noun, singular for one: "1 step", "3 steps".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// CostText is how every face writes a cost: "cost $0.0031", or "cost
// unknown" when the price of a model used was not known.
func CostText(usd float64, known bool) string { return "cost " + USD(usd, known) }

// USD is a cost alone, for tables: "$0.0031" or "unknown".
func USD(usd float64, known bool) string {
	if !known {
		return "unknown"
	}
	return fmt.Sprintf("$%.4f", usd)
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
