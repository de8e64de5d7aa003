package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/openseek/openseek/internal/render"
)

// view is what a block needs to render itself.
type view struct {
	width    int
	st       *styles
	md       *renderers
	now      time.Time
	throttle time.Duration
	expand   bool // tool output unfolded
	spin     string
}

// block is one entry of the transcript. Static blocks cache their lines
// per width; live blocks (a running tool card) render every frame.
type block interface {
	lines(v *view) []string
}

// textBlock is a fixed paragraph in one style (user input, notices).
type textBlock struct {
	prefix string
	text   string
	kind   int // kindUser, kindNote, kindWarn, kindErr
	cacheW int
	cache  []string
}

const (
	kindUser = iota
	kindNote
	kindWarn
	kindErr
	kindSteer
)

func (b *textBlock) lines(v *view) []string {
	if b.cacheW == v.width && b.cache != nil {
		return b.cache
	}
	st := v.st.dim
	switch b.kind {
	case kindUser, kindSteer:
		st = v.st.user
	case kindWarn:
		st = v.st.warn
	case kindErr:
		st = v.st.err
	}
	raw := wrapPlain(b.prefix+b.text, v.width)
	out := make([]string, len(raw))
	for i, l := range raw {
		out[i] = st.Render(l)
	}
	b.cacheW, b.cache = v.width, out
	return out
}

// answerBlock is the model's answer, streamed as markdown. Inline, its
// first shown lines are in the terminal's scrollback already.
type answerBlock struct {
	md    markdown
	shown int
}

func (b *answerBlock) lines(v *view) []string { return b.md.lines(v.width, v.md, v.throttle, v.now) }

// reasoningBlock streams dimmed and folds to one line once the answer or
// a tool call starts.
type reasoningBlock struct {
	text   strings.Builder
	folded bool
}

func (b *reasoningBlock) lines(v *view) []string {
	t := strings.TrimSpace(b.text.String())
	if t == "" {
		return nil
	}
	if b.folded && !v.expand {
		n := strings.Count(t, "\n") + 1
		return []string{v.st.dim.Render(fmt.Sprintf("▸ thought (%d lines; ctrl+o shows)", n))}
	}
	raw := wrapPlain(t, v.width-2)
	if !b.folded && len(raw) > 6 {
		raw = raw[len(raw)-6:]
	}
	out := make([]string, len(raw))
	for i, l := range raw {
		out[i] = v.st.dim.Render("┆ " + l)
	}
	return out
}

// toolCard is one tool call: live while it runs, then its outcome.
type toolCard struct {
	id, name, brief string
	started         time.Time
	elapsed         time.Duration
	done, isErr     bool
	unfold          bool // shown whole (a /diff), not folded
	output, diff    string
	cacheW          int
	cacheExp        bool
	cache           []string
	child           bool // a call a script made (shown under the script's card)
	whole           bool // a command the user ran (`!`): more of its output shows
}

// foldLines is how many output lines a finished card shows folded;
// wholeLines how many the card of a command the user ran shows.
const (
	foldLines  = 3
	wholeLines = 30
)

func (c *toolCard) lines(v *view) []string {
	width := v.width
	if c.child {
		width -= 4 // room for nest's indent
	}
	if !c.done {
		el := v.now.Sub(c.started).Truncate(100 * time.Millisecond)
		head := fmt.Sprintf("%s %s %s", v.spin, v.st.title.Render(c.name), c.brief)
		return c.nest([]string{truncate(head, width-8) + v.st.dim.Render(fmt.Sprintf(" %.1fs", el.Seconds()))})
	}
	if c.cacheW == v.width && c.cacheExp == v.expand && c.cache != nil {
		return c.cache
	}
	mark, st := v.st.ok.Render("✓"), "ok"
	if c.isErr {
		mark, st = v.st.err.Render("✗"), "error"
	}
	output := c.output
	if body, f, ok := render.SplitFooter(output); ok {
		// The footer is for the model: an exit code and words for people.
		output = body
		if f.Exit != "" {
			st = "exit " + f.Exit
		}
		if len(f.Notes) > 0 {
			st += " · " + strings.Join(f.Notes, " · ")
		}
	}
	head := fmt.Sprintf("%s %s %s", mark, v.st.title.Render(c.name), c.brief)
	out := []string{truncate(head, width-16) + v.st.dim.Render(fmt.Sprintf(" %s · %.1fs", st, c.elapsed.Seconds()))}
	if c.unfold { // not a tool the model ran: no outcome, no time
		out[0] = truncate(head, width)
	}
	body := output
	colour := false
	if c.diff != "" {
		body, colour = c.diff, true
	}
	body = strings.TrimRight(body, "\n")
	if body != "" {
		raw := strings.Split(body, "\n")
		shown := raw
		fold := foldLines
		if c.whole {
			fold = wholeLines
		}
		if !v.expand && !c.unfold && len(raw) > fold {
			shown = raw[:fold]
		}
		for _, l := range shown {
			l = truncate(strings.ReplaceAll(l, "\t", "    "), width-4)
			switch {
			case !colour:
				l = v.st.dim.Render(l)
			case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
				l = v.st.added.Render(l)
			case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
				l = v.st.removed.Render(l)
			case strings.HasPrefix(l, "@@"):
				l = v.st.hunk.Render(l)
			default:
				l = v.st.dim.Render(l)
			}
			out = append(out, "  │ "+l)
		}
		if len(shown) < len(raw) {
			out = append(out, v.st.dim.Render(fmt.Sprintf("  └ … %d more lines (ctrl+o expands)", len(raw)-len(shown))))
		}
	}
	out = c.nest(out)
	c.cacheW, c.cacheExp, c.cache = v.width, v.expand, out
	return out
}

// nest indents the card of a call a script made under the script's card.
func (c *toolCard) nest(lines []string) []string {
	if !c.child {
		return lines
	}
	for i, l := range lines {
		if i == 0 {
			lines[i] = "  ↳ " + l
		} else {
			lines[i] = "    " + l
		}
	}
	return lines
}

// finish records the tool's result.
func (c *toolCard) finish(isErr bool, output, diff string, brief *string, at time.Time) {
	c.done, c.isErr, c.output, c.diff = true, isErr, output, diff
	if !c.started.IsZero() {
		c.elapsed = at.Sub(c.started)
	}
	if brief != nil && *brief != "" && c.brief == "" {
		c.brief = *brief
	}
	c.cache = nil
}

// briefOf picks the telling argument of a tool call for its card.
func briefOf(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return oneLine(args)
	}
	for _, k := range []string{"cmd", "command", "path", "file_path", "pattern", "query", "url", "goal", "prompt", "job_id"} {
		if s, ok := m[k].(string); ok && s != "" {
			return oneLine(s)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return oneLine(s)
		}
	}
	return ""
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// truncate cuts a styled line to width cells.
func truncate(s string, width int) string {
	return ansi.Truncate(s, max(width, 4), "…")
}

// transcript is the history as blocks; window renders only the lines
// that are visible, from the bottom up, so a long history costs nothing
// per frame.
type transcript struct {
	blocks []block
	top    int // the first block the last window drew (a scrolled view's anchor)
}

func (t *transcript) add(b block) { t.blocks = append(t.blocks, b) }

// window returns height lines ending offset lines above the bottom, and
// whether more lines lie above them.
func (t *transcript) window(v *view, height, offset int) ([]string, bool) {
	need := height + offset
	var rev [][]string
	n := 0
	i := len(t.blocks) - 1
	for ; i >= 0 && n < need; i-- {
		ls := t.blocks[i].lines(v)
		if len(ls) == 0 {
			continue
		}
		rev = append(rev, ls)
		n += len(ls) + 1 // a blank line between blocks
	}
	all := make([]string, 0, n)
	for j := len(rev) - 1; j >= 0; j-- {
		if len(all) > 0 {
			all = append(all, "")
		}
		all = append(all, rev[j]...)
	}
	t.top = i + 1
	more := i >= 0
	end := len(all) - offset
	if end < 0 {
		end = 0
	}
	start := max(end-height, 0)
	if start > 0 {
		more = true
	}
	return all[start:end], more
}

// linesFrom counts the lines of blocks k and after, as window lays them
// out.
func (t *transcript) linesFrom(v *view, k int) int {
	n := 0
	for _, b := range t.blocks[min(k, len(t.blocks)):] {
		if ls := b.lines(v); len(ls) > 0 {
			n += len(ls) + 1
		}
	}
	return n
}
