package web

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/openseek/openseek/internal/render"
	"html/template"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/markdown"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// block is one piece of the chat history as the page shows it.
type block struct {
	Kind      string // user, assistant, tool, notice, summary, status
	Seq       int
	Time      string
	Text      string // user, notice, summary and status text
	Markdown  string // an assistant's answer, as written (Answer renders it)
	Reasoning string
	Tool      *card
	From, To  int       // a summary's range
	Approval  *approval // an approval question and its answer
}

// approval is a recorded approval question (session.ApprovalMarker) and
// the answer recorded after it.
type approval struct {
	ID, Tool, Detail, Body string
	Covers                 string // the prefixes "for this session" covers
	Outcome, Reason        string // "" while it waits
}

// outcomeText is an approval's answer in words.
func (a *approval) OutcomeText() string {
	if a.Outcome == "" {
		return "waiting for an answer"
	}
	s := strings.ReplaceAll(a.Outcome, "_", " ")
	if a.Outcome == "allowed_for_session" && a.Covers != "" {
		s += " (" + a.Covers + ")"
	}
	return s
}

// card is one tool call and its result.
type card struct {
	ID, Name, Args string
	Done, IsError  bool
	Brief, Result  string
	Exit           string     // the shell's exit code, from the result's footer
	Notes          []string   // the rest of the footer, in words
	Took           string     // from the call to its result, when both were logged with a time
	diff           string     // an edit's unified diff (Files renders it)
	files          []diffFile // Files, once rendered
	Children       []*card    // the calls a script made, in order
	start          int64      // when the call was logged (ms)
}

// step is one model call of the log: its tokens and cost.
type step struct {
	N, Seq                        int
	Time                          string
	Prompt, Hit, Miss, Completion int
	HitRatio                      string
	Cost                          string
}

// row is one event of the timeline.
type row struct {
	Seq              int
	Time, Date, Kind string // Time as the chat shows it; Date in full, on hover
	What             string
}

// compaction is one summarised range of the log.
type compaction struct{ Seq, From, To int }

// history turns a session log into the blocks of its chat page: tool calls
// become cards that their results complete.
func history(s *session.Session) []block {
	var out []block
	cards := map[string]*card{}
	asked := map[string]*approval{} // the newest question of each id
	lastAnswer := ""
	for _, e := range s.Events {
		b := block{Seq: e.Sequence, Time: clock(e.TS)}
		switch it := e.Item.(type) {
		case *session.User:
			b.Kind, b.Text = "user", it.Content.Text()
			out = append(out, b)
		case *session.Assistant:
			if it.IsReplay {
				continue
			}
			if it.Content != "" || (it.Reasoning != nil && *it.Reasoning != "") {
				b.Kind, b.Markdown = "assistant", it.Content
				if it.Reasoning != nil {
					b.Reasoning = *it.Reasoning
				}
				lastAnswer = it.Content
				out = append(out, b)
			}
			for _, c := range it.ToolCalls {
				cd := &card{ID: c.ID, Name: c.Name, Args: argsBrief(c.Arguments), start: e.TS}
				cards[c.ID] = cd
				out = append(out, block{Kind: "tool", Seq: e.Sequence, Time: b.Time, Tool: cd})
			}
		case *session.ToolResult:
			if parent := cards[it.Parent]; it.Parent != "" && parent != nil {
				// A call a script made: a card inside the script's card.
				cd := &card{ID: it.ToolCallID, Name: it.ToolName, Args: argsBrief(it.Arguments)}
				cd.complete(it, e.TS)
				parent.Children = append(parent.Children, cd)
				break
			}
			cd, ok := cards[it.ToolCallID]
			if !ok {
				cd = &card{ID: it.ToolCallID, Name: it.ToolName}
				out = append(out, block{Kind: "tool", Seq: e.Sequence, Time: b.Time, Tool: cd})
			}
			cd.complete(it, e.TS)
		case *session.Notice:
			ev, ok := session.ParseApproval(it.Content)
			switch ev := ev.(type) {
			case protocol.ApprovalRequested:
				a := &approval{ID: ev.ID, Tool: ev.ToolName, Detail: ev.Detail, Body: deref(ev.Body), Covers: ev.Covers()}
				asked[ev.ID] = a
				b.Kind, b.Approval = "approval", a
				out = append(out, b)
			case protocol.ApprovalResolved:
				if a := asked[ev.ID]; a != nil {
					a.Outcome, a.Reason = ev.Outcome, ev.Reason
					delete(asked, ev.ID)
				}
			}
			if !ok && !session.IsMarker(it.Content) { // snapshot and rewind bookkeeping stay out (the viewer's timeline has them)
				b.Kind, b.Text = "notice", it.Content
				out = append(out, b)
			}
		case *session.Summary:
			b.Kind, b.Text, b.From, b.To = "summary", it.Content, it.From, it.To
			out = append(out, b)
		case *session.Terminal:
			text := it.StatusText()
			if text == "" || (it.Kind == session.Finished && text == lastAnswer) {
				continue
			}
			b.Kind, b.Text = "status", text
			out = append(out, b)
		}
	}
	return out
}

// Answer is an assistant's answer as HTML (package markdown). Rendered
// when the page shows the block, not for the blocks a long session's
// page leaves for "Show earlier".
func (b block) Answer() template.HTML { return template.HTML(markdown.HTML(b.Markdown)) }

// Files is the card's diff per file, rendered once, when shown.
func (c *card) Files() []diffFile {
	if c.files == nil && c.diff != "" {
		c.files = diffFiles(c.diff)
	}
	return c.files
}

// findCard is the card of tool call id in s (with the calls a script
// made inside it), or nil: what a live page asks for when the call's
// result arrives, so that the card is rendered here, as in the history.
func findCard(s *session.Session, id string) *card {
	var c *card
	for _, e := range s.Events {
		switch it := e.Item.(type) {
		case *session.Assistant:
			for _, tc := range it.ToolCalls {
				if tc.ID == id && !it.IsReplay {
					c = &card{ID: id, Name: tc.Name, Args: argsBrief(tc.Arguments), start: e.TS}
				}
			}
		case *session.ToolResult:
			switch {
			case it.ToolCallID == id:
				if c == nil {
					c = &card{ID: id, Name: it.ToolName, Args: argsBrief(it.Arguments)}
				}
				c.complete(it, e.TS)
			case it.Parent == id && c != nil:
				child := &card{ID: it.ToolCallID, Name: it.ToolName, Args: argsBrief(it.Arguments)}
				child.complete(it, e.TS)
				c.Children = append(c.Children, child)
			}
		}
	}
	return c
}

// complete fills a card with its result, logged at ts.
func (c *card) complete(r *session.ToolResult, ts int64) {
	c.Done, c.IsError = true, r.IsError
	if r.Brief != nil && !strings.Contains(c.Args, *r.Brief) {
		c.Brief = *r.Brief // a brief the arguments already say is not repeated
	}
	c.Result = r.Content.Text()
	if body, f, ok := render.SplitFooter(c.Result); ok {
		c.Result, c.Exit, c.Notes = body, f.Exit, f.Notes
	}
	if c.start > 0 && ts >= c.start {
		c.Took = duration(ts - c.start)
	}
	c.diff = diffOf(r.Data)
}

// duration is a tool call's time as the cards show it: 0.4s, 12s, 2m05s.
func duration(ms int64) string {
	switch {
	case ms < 10_000:
		return fmt.Sprintf("%.1fs", float64(ms)/1000)
	case ms < 60_000:
		return fmt.Sprintf("%ds", (ms+500)/1000)
	}
	s := (ms + 500) / 1000
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// diffOf is the unified diff an edit tool kept in its result's data (the
// same "diff" key the tool_result event carries), or "".
func diffOf(data json.RawMessage) string {
	if len(data) == 0 || !strings.Contains(string(data), `"diff"`) {
		return ""
	}
	var d struct {
		Diff string `json:"diff"`
	}
	if json.Unmarshal(data, &d) != nil {
		return ""
	}
	return d.Diff
}

// argsBrief is a tool call's arguments on one line: "key: value" pairs,
// long values clipped.
func argsBrief(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return clip(oneLine(args), 200)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, ok := m[k].(string)
		if !ok {
			b, _ := json.Marshal(m[k])
			v = string(b)
		}
		parts = append(parts, k+": "+clip(oneLine(v), 120))
	}
	return clip(strings.Join(parts, " · "), 300)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func clock(ts int64) string {
	if ts <= 0 {
		return ""
	}
	return time.UnixMilli(ts).Local().Format("15:04:05")
}

// timeline lists every event of the log with its kind and a one-line gist.
func timeline(s *session.Session) []row {
	out := make([]row, 0, len(s.Events))
	for _, e := range s.Events {
		r := row{Seq: e.Sequence, Kind: e.Item.ItemKind()}
		if e.TS > 0 {
			r.Time, r.Date = clock(e.TS), time.UnixMilli(e.TS).Local().Format(time.DateTime)
		}
		switch it := e.Item.(type) {
		case *session.User:
			r.What = it.Content.Text()
		case *session.Assistant:
			var calls []string
			for _, c := range it.ToolCalls {
				calls = append(calls, c.Name)
			}
			r.What = it.Content
			if len(calls) > 0 {
				r.What = strings.TrimSpace(r.What + " → " + strings.Join(calls, ", "))
			}
			if it.IsReplay {
				r.What = "(replay) " + r.What
			}
		case *session.ToolResult:
			r.What = it.ToolName + ": " + cmp.Or(deref(it.Brief), it.Content.Text())
			if it.IsError {
				r.What = "error · " + r.What
			}
			if it.Parent != "" {
				r.What = "↳ " + it.Parent + " · " + r.What // a call the script it.Parent made
			}
		case *session.Notice:
			r.What = it.Content
			if ev, ok := session.ParseApproval(it.Content); ok {
				r.Kind, r.What = "approval", session.DescribeApproval(ev)
			} else if session.IsMarker(it.Content) {
				// bookkeeping: a small marker row, not the notice's raw text
				r.Kind, r.What = "rewind", "later events hidden"
				if strings.HasPrefix(it.Content, session.SnapshotPrefix) {
					r.Kind, r.What = "snapshot", "workspace snapshot"
				} else if strings.HasPrefix(it.Content, session.UnchangedPrefix) {
					r.Kind, r.What = "snapshot", "no snapshot: the turn changed no files"
				}
				if strings.HasPrefix(it.Content, session.CompactionNotePrefix) {
					r.Kind, r.What = e.Item.ItemKind(), it.Content // what a compaction summarised, as written
				}
			}
		case *session.Summary:
			r.What = fmt.Sprintf("summary of events %d–%d", it.From, it.To)
		case *session.Terminal:
			r.Kind += " · " + string(it.Kind)
			r.What = it.Message
		}
		r.What = clip(oneLine(r.What), 160)
		out = append(out, r)
	}
	return out
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// steps are the model calls of the log with their usage and cost.
func steps(s *session.Session) []step {
	var out []step
	for _, e := range s.Events {
		a, ok := e.Item.(*session.Assistant)
		if !ok || a.Usage == nil {
			continue
		}
		u := *a.Usage
		out = append(out, step{N: len(out) + 1, Seq: e.Sequence, Time: clock(e.TS), Prompt: u.PromptTokens,
			Hit: u.PromptCacheHitTokens, Miss: u.PromptCacheMissTokens, Completion: u.CompletionTokens,
			HitRatio: hitRatio(u), Cost: costText(a.CostUSD)})
	}
	return out
}

func hitRatio(u protocol.Usage) string {
	if u.PromptTokens == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(u.PromptCacheHitTokens)/float64(u.PromptTokens))
}

// costText is one response's recorded cost; "–" when it was unknown.
func costText(usd *float64) string {
	if usd == nil {
		return "–"
	}
	return render.USD(*usd, true)
}

// compactions are the summarised ranges of the log.
func compactions(s *session.Session) []compaction {
	var out []compaction
	for _, e := range s.Events {
		if sum, ok := e.Item.(*session.Summary); ok {
			out = append(out, compaction{Seq: e.Sequence, From: sum.From, To: sum.To})
		}
	}
	return out
}

var subrunID = regexp.MustCompile(`^(.+)-sr-[0-9]+$`)

// parentOf is the id of the session that started sub-agent session id,
// or "".
func parentOf(id string) string {
	if m := subrunID.FindStringSubmatch(id); m != nil {
		return m[1]
	}
	return ""
}
