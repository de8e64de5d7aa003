package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/protocol"
)

// history builds a session of n events: prompts, answers and tool cards.
func history(b *testing.B, n int) *Model {
	s := newScripted()
	m := newModel(b, s)
	var evs []protocol.Event
	for i := 0; len(evs) < n; i++ {
		id := fmt.Sprintf("c%d", i)
		evs = append(evs,
			protocol.ToolStarted{ToolCallID: id, ToolName: "shell", Arguments: `{"cmd":"go test ./..."}`},
			protocol.ToolResult{ToolCallID: id, ToolName: "shell", Content: "ok\nok\nok\nok"},
			protocol.AssistantDelta{Content: fmt.Sprintf("Step %d: **done** with `code`.\n\nNext paragraph.\n", i)},
			protocol.AssistantMessage{Content: "x"},
			protocol.TurnSummary{Outcome: "finished", Steps: 1},
		)
	}
	feed(m, evs...)
	m.render()
	return m
}

// BenchmarkFrame5000: one frame (View) over a 5,000-event history.
func BenchmarkFrame5000(b *testing.B) {
	m := history(b, 5000)
	b.ResetTimer()
	for b.Loop() {
		m.View()
	}
}

// BenchmarkToken5000: one streamed token (Update + View) at the end of a
// 5,000-event history, the markdown tail rendered on every frame.
func BenchmarkToken5000(b *testing.B) {
	m := history(b, 5000)
	feed(m, protocol.AssistantDelta{Content: "# Answer\n\nSome text "})
	b.ResetTimer()
	for b.Loop() {
		feed(m, protocol.AssistantDelta{Content: "word "})
		m.View()
	}
}

// BenchmarkKeypress: a typed key to the next frame.
func BenchmarkKeypress(b *testing.B) {
	m := history(b, 5000)
	b.ResetTimer()
	for b.Loop() {
		m.Update(tea.KeyPressMsg{Code: 'a', Text: "a"})
		m.View()
	}
}

// BenchmarkKeypressTyping: a typed key, or a backspace, to the next frame
// with a short input (BenchmarkKeypress lets the input grow by a key per
// iteration, so its figure depends on b.N).
func BenchmarkKeypressTyping(b *testing.B) { typing(b, history(b, 5000)) }

// typing times a typed key, or a backspace, to the next frame.
func typing(b *testing.B, m *Model) {
	m.input.SetValue("explain the failing test in ")
	keys := []tea.KeyPressMsg{{Code: 'a', Text: "a"}, {Code: tea.KeyBackspace}}
	i := 0
	b.ResetTimer()
	for b.Loop() {
		m.Update(keys[i%2])
		m.View()
		i++
	}
}

// BenchmarkStream1000TokensPerSecond streams 1,000 tokens as one
// simulated second (a frame per token, the tail throttled as in the
// binary): ns/op is the CPU time that second of streaming costs.
func BenchmarkStream1000TokensPerSecond(b *testing.B) {
	m := history(b, 500)
	m.opts.Throttle = 40 * time.Millisecond
	clock := epoch
	m.opts.Now = func() time.Time { return clock }
	b.ResetTimer()
	for b.Loop() {
		// 1,000 tokens over one simulated second, a frame per token.
		for i := 0; i < 1000; i++ {
			clock = clock.Add(time.Millisecond)
			feed(m, protocol.AssistantDelta{Content: "tok "})
			if i%80 == 79 {
				feed(m, protocol.AssistantDelta{Content: "\n\n"})
			}
			m.View()
		}
		feed(m, protocol.AssistantMessage{Content: ""})
	}
}

// BenchmarkMarkdownLongLines renders 256 KiB that has no place to wrap:
// one code line and one word (minified output pasted by a model). The
// cost must grow with the length, not its square.
func BenchmarkMarkdownLongLines(b *testing.B) {
	long := strings.Repeat("x", 256<<10)
	src := "```\n" + long + "\n```\n\n" + long + "\n"
	r := newRenderers(false, true)
	for b.Loop() {
		r.render(src, 80)
	}
}

// BenchmarkKeypressTypingInline5000 is BenchmarkKeypressTyping inline:
// the 5,000-event history is in the scrollback, the frame is the input.
func BenchmarkKeypressTypingInline5000(b *testing.B) {
	m := history(b, 5000)
	m.opts.Inline = true
	m.printing = true // what settles stays in the outbox: no program runs here
	m.printFinished()
	typing(b, m)
}
