package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/openseek/openseek/protocol"
)

// Inline, a streaming answer's finished paragraphs go to the scrollback
// as they finish, and the frame keeps only what still grows; every line
// is printed once, in order, in chunks that fit above the frame.
func TestInlinePrintsSettledLinesOnce(t *testing.T) {
	s := newScripted()
	m := New(context.Background(), s, s, Options{NoColor: true, Inline: true, Workspace: "/w", Now: func() time.Time { return epoch }})
	// While printing is set, what Update settles waits in the outbox;
	// flush takes it off as the program would, chunk by chunk.
	m.printing = true
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 12})
	var printed []string
	flush := func() {
		m.printFinished()
		m.printing = false
		defer func() { m.printing = true }()
		for {
			chunk, ok := m.nextChunk()
			if !ok {
				break
			}
			if n := strings.Count(chunk, "\n") + 1; n > m.height-m.frameH-1 {
				t.Fatalf("a chunk of %d lines does not fit above a frame of %d in %d rows", n, m.frameH, m.height)
			}
			printed = append(printed, strings.Split(ansi.Strip(chunk), "\n")...)
			m.printing = false
		}
	}
	m.View()
	flush()
	feed(m, protocol.AgentStep{Step: 1}, protocol.AssistantDelta{Content: "First paragraph.\n\nSecond para"})
	m.View()
	flush()
	live := ansi.Strip(m.render())
	if !strings.Contains(strings.Join(printed, "\n"), "First paragraph.") || strings.Contains(live, "First paragraph.") {
		t.Fatalf("the finished paragraph is not in the scrollback alone:\nprinted %q\nframe:\n%s", printed, live)
	}
	if !strings.Contains(live, "Second para") || strings.Contains(strings.Join(printed, "\n"), "Second") {
		t.Fatalf("the growing paragraph left the frame:\nprinted %q\nframe:\n%s", printed, live)
	}
	for i := range 30 {
		feed(m, protocol.AssistantDelta{Content: strings.Repeat("x", i%3+1) + ".\n\nMore"})
	}
	feed(m, protocol.AssistantMessage{Content: ""}, protocol.TurnSummary{Outcome: "finished", Steps: 1})
	m.View()
	flush()
	all := strings.Join(printed, "\n")
	for _, want := range []string{"OpenSeek", "First paragraph.", "Second para", "— finished"} {
		if strings.Count(all, want) != 1 {
			t.Errorf("%q printed %d times:\n%s", want, strings.Count(all, want), all)
		}
	}
	if strings.Index(all, "First paragraph.") > strings.Index(all, "— finished") {
		t.Errorf("printed out of order:\n%s", all)
	}
	if strings.Contains(ansi.Strip(m.render()), "paragraph") {
		t.Errorf("the frame still shows what was printed:\n%s", m.render())
	}
}
