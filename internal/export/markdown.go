package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/internal/session"
)

// Result clipping: a transcript shows the head of a long tool result and
// says how much was left out; the raw log (--format jsonl) keeps it all.
const (
	resultLines = 40
	resultBytes = 4000
)

// Markdown writes a readable transcript of s: each turn's prompt, the
// answers, the tool calls with their arguments and clipped results,
// notices, summaries and how the turn ended, then the totals (tokens and
// the cost recorded with each response: session.Session.Cost).
func Markdown(w io.Writer, s *session.Session) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# OpenSeek session %s\n", s.ID)
	turn := 0
	for _, e := range s.Events {
		switch it := e.Item.(type) {
		case *session.User:
			turn++
			fmt.Fprintf(&b, "\n## Turn %d\n\n**Prompt**%s\n\n%s\n", turn, when(e.TS), quote(it.Content.Text()))
		case *session.Assistant:
			if it.IsReplay {
				continue // a checkpoint re-appending an answer shown already
			}
			if it.Reasoning != nil && strings.TrimSpace(*it.Reasoning) != "" {
				fmt.Fprintf(&b, "\n<details><summary>reasoning</summary>\n\n%s\n\n</details>\n", strings.TrimSpace(*it.Reasoning))
			}
			if strings.TrimSpace(it.Content) != "" {
				fmt.Fprintf(&b, "\n**Answer**\n\n%s\n", strings.TrimSpace(it.Content))
			}
			for _, c := range it.ToolCalls {
				fmt.Fprintf(&b, "\n**Tool call** `%s`%s\n", c.Name, arguments(c.Arguments))
			}
		case *session.ToolResult:
			label := "Result"
			if it.IsError {
				label = "Error"
			}
			fmt.Fprintf(&b, "\n%s of `%s`:\n\n%s\n", label, it.ToolName, fenced(result(it.Content.Text()), ""))
		case *session.Notice:
			text := it.Content
			if ev, ok := session.ParseApproval(text); ok {
				text = session.DescribeApproval(ev)
			} else if session.IsMarker(text) {
				continue // snapshot and rewind bookkeeping
			}
			fmt.Fprintf(&b, "\n_Notice:_\n\n%s\n", quote(text))
		case *session.Summary:
			fmt.Fprintf(&b, "\n**Summary of events %d–%d**\n\n%s\n", it.From, it.To, quote(it.Content))
		case *session.Terminal:
			msg := ""
			if it.Kind != session.Finished && it.Message != "" {
				msg = ": " + strings.Join(strings.Fields(it.Message), " ")
			}
			fmt.Fprintf(&b, "\n_Turn ended: %s%s._\n", strings.ReplaceAll(string(it.Kind), "_", " "), msg)
		}
	}
	usd, known := s.Cost()
	fmt.Fprintf(&b, "\n## Totals\n\n%s · %s\n", render.UsageLine(s.Usage(), nil), render.CostText(usd, known))
	_, err := w.Write(b.Bytes())
	return err
}

// when is " · <time>" for a recorded time, "" for none.
func when(ts int64) string {
	if ts <= 0 {
		return ""
	}
	return " · " + time.UnixMilli(ts).UTC().Format("2006-01-02 15:04:05 UTC")
}

// quote is text as a Markdown block quote.
func quote(text string) string {
	text = strings.TrimRight(text, "\n")
	return "> " + strings.ReplaceAll(text, "\n", "\n> ")
}

// arguments shows a tool call's JSON arguments as a person reads them:
// each field of an object on its own line, a multi-line string (a file's
// content, a patch, a script) in a code block of its own; anything else as
// indented JSON.
func arguments(args string) string {
	var fields map[string]json.RawMessage
	d := json.NewDecoder(strings.NewReader(args))
	d.UseNumber()
	if err := d.Decode(&fields); err != nil || len(fields) == 0 {
		return "\n\n" + fenced(pretty(args), "json")
	}
	var b strings.Builder
	b.WriteString("\n")
	for _, k := range orderedKeys(args, fields) {
		var str string
		if err := json.Unmarshal(fields[k], &str); err == nil {
			if strings.Contains(str, "\n") {
				fmt.Fprintf(&b, "\n- `%s`:\n\n%s\n", k, indentBlock(fenced(str, ""), "  "))
				continue
			}
			fmt.Fprintf(&b, "\n- `%s`: %s", k, inlineCode(str))
			continue
		}
		fmt.Fprintf(&b, "\n- `%s`: %s", k, inlineCode(pretty(string(fields[k]))))
	}
	return strings.TrimRight(b.String(), "\n")
}

// orderedKeys are the keys of the object args in the order it wrote them.
func orderedKeys(args string, fields map[string]json.RawMessage) []string {
	d := json.NewDecoder(strings.NewReader(args))
	keys := make([]string, 0, len(fields))
	if _, err := d.Token(); err != nil { // {
		return keys
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			break
		}
		k, _ := tok.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			break
		}
	}
	return keys
}

// pretty is JSON as render.ReadableArgs writes it (\u003e stays >),
// indented when long; text that is not JSON is returned as it is.
func pretty(raw string) string {
	out := render.ReadableArgs(raw)
	var b bytes.Buffer
	if len(out) <= 80 || json.Indent(&b, []byte(out), "", "  ") != nil {
		return out
	}
	return b.String()
}

// result is a tool result as a person reads it (render.ForPeople: the
// closing footer in words), its body clipped and the footer kept.
func result(text string) string {
	body, _, ok := render.SplitFooter(text)
	if !ok {
		return clip(text)
	}
	return clip(body) + strings.TrimPrefix(render.ForPeople(text), body)
}

// clip keeps the head of a long result, saying how much was left out.
func clip(text string) string {
	text = strings.TrimRight(text, "\n")
	lines := strings.Split(text, "\n")
	kept := lines
	if len(kept) > resultLines {
		kept = kept[:resultLines]
	}
	out := strings.Join(kept, "\n")
	if len(out) > resultBytes {
		cut := resultBytes
		for cut > 0 && !isRuneStart(out[cut]) {
			cut--
		}
		out = out[:cut]
		kept = strings.Split(out, "\n")
	}
	if len(out) < len(text) {
		out += fmt.Sprintf("\n… (%d more lines, %d more bytes)", len(lines)-len(kept), len(text)-len(out))
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// fenced is text in a fenced code block whose fence is longer than any
// run of backticks in it, so that no content closes it early.
func fenced(text, lang string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + fence
}

// inlineCode is a one-line value as inline code, with a delimiter that no
// backtick in it closes.
func inlineCode(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return "`` " + s + " ``"
}

func indentBlock(text, prefix string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}
