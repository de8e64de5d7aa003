package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/openseek/openseek/protocol"
)

// checkBlock is one run of the project's build check: "checking:
// <command>" with its elapsed time while it runs, then how it ended and,
// when it failed, the start of its output.
type checkBlock struct {
	command string
	started time.Time
	elapsed time.Duration
	done    bool
	result  protocol.VerifyResult
}

func (b *checkBlock) lines(v *view) []string {
	if !b.done {
		el := v.now.Sub(b.started).Truncate(100 * time.Millisecond)
		head := fmt.Sprintf("%s checking: %s", v.spin, b.command)
		return []string{truncate(head, v.width-8) + v.st.dim.Render(fmt.Sprintf(" %.1fs", el.Seconds()))}
	}
	mark := v.st.ok.Render("✓")
	if !b.result.OK {
		mark = v.st.err.Render("✗")
	}
	head := fmt.Sprintf("%s check %s: %s", mark, b.result.Outcome(), b.command)
	out := []string{truncate(head, v.width-8) + v.st.dim.Render(fmt.Sprintf(" %.1fs", b.elapsed.Seconds()))}
	if b.result.OK {
		return out
	}
	raw := strings.Split(strings.TrimRight(b.result.Output, "\n"), "\n")
	shown := raw
	if !v.expand && len(raw) > foldLines {
		shown = raw[:foldLines]
	}
	for _, l := range shown {
		out = append(out, "  │ "+v.st.dim.Render(truncate(strings.ReplaceAll(l, "\t", "    "), v.width-4)))
	}
	if len(shown) < len(raw) {
		out = append(out, v.st.dim.Render(fmt.Sprintf("  └ … %d more lines (ctrl+o expands)", len(raw)-len(shown))))
	}
	return out
}

// verifyStarted shows the check that began.
func (m *Model) verifyStarted(e protocol.VerifyStarted, now time.Time) {
	m.busy = true
	m.closeAnswer()
	m.checking = &checkBlock{command: e.Command, started: now}
	m.tr.add(m.checking)
}

// verifyResult turns the running check into its result.
func (m *Model) verifyResult(e protocol.VerifyResult, now time.Time) {
	b := m.checking
	if b == nil || b.command != e.Command {
		b = &checkBlock{command: e.Command, started: now}
		m.tr.add(b)
	}
	m.checking = nil
	b.done, b.result, b.elapsed = true, e, now.Sub(b.started)
}
