package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	md "github.com/openseek/openseek/internal/markdown"
)

// copyAnswer is /copy: the last answer, or with a number its code block
// of that number (1 = the first), goes to the terminal's clipboard by
// OSC 52 — which reaches the local clipboard over ssh and tmux too, where
// the terminal allows it. The note says what went, since a terminal that
// ignores OSC 52 gives no sign.
func (m *Model) copyAnswer(arg string) tea.Cmd {
	src := m.lastAnswer()
	if src == "" {
		m.note(kindWarn, "", "/copy: there is no answer to copy yet")
		return nil
	}
	what := fmt.Sprintf("the last answer (%d lines)", strings.Count(strings.TrimRight(src, "\n"), "\n")+1)
	if arg != "" {
		blocks := md.CodeBlocks(src)
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 || n > len(blocks) {
			m.note(kindWarn, "", fmt.Sprintf("/copy %s: the last answer has %d code blocks; /copy N copies the Nth, /copy the whole answer", arg, len(blocks)))
			return nil
		}
		src = blocks[n-1]
		what = fmt.Sprintf("code block %d of the last answer (%d lines)", n, strings.Count(strings.TrimRight(src, "\n"), "\n")+1)
	}
	m.note(kindNote, "", "copied "+what+" to the clipboard (OSC 52; a terminal that does not allow it copies nothing)")
	return tea.SetClipboard(src)
}

// lastAnswer is the markdown source of the newest answer block.
func (m *Model) lastAnswer() string {
	for i := len(m.tr.blocks) - 1; i >= 0; i-- {
		if a, ok := m.tr.blocks[i].(*answerBlock); ok {
			return strings.TrimSpace(a.md.text.String()) + "\n"
		}
	}
	return ""
}
