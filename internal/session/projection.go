package session

import (
	"strconv"
	"strings"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

// Messages projects the log into the chat messages a model sees (reference
// §4): the system prompt first; a summary replaces the events it covers
// and is emitted where its range starts; every tool call gets exactly one
// result (a synthetic error when none was recorded) and results answering
// no open call are dropped; terminals become status text; context yields
// project to nothing.
func (s *Session) Messages() []chat.Message {
	msgs := make([]chat.Message, 0, len(s.Events)+1)
	msgs = append(msgs, chat.Message{Role: chat.System, Content: protocol.Text(s.SystemPrompt)})

	hidden := s.rewound()
	covered, startsAt := s.coverage(hidden)
	var pending []chat.ToolCall
	flush := func() {
		for _, c := range pending {
			msgs = append(msgs, chat.Message{Role: chat.Tool, ToolCallID: c.ID, Content: protocol.Text(missingResultPrefix + c.Name)})
		}
		pending = pending[:0]
	}
	for i, e := range s.Events {
		for _, sum := range startsAt[e.Sequence] {
			flush()
			msgs = append(msgs, chat.Message{Role: chat.User, Content: protocol.Text(summaryText(sum))})
		}
		if covered[i] || (hidden != nil && hidden[i]) {
			continue
		}
		switch it := e.Item.(type) {
		case *Assistant:
			flush()
			m := chat.Message{Role: chat.Assistant, Reasoning: it.Reasoning,
				ReasoningSignature: it.ReasoningSignature, ReasoningItems: it.ReasoningItems}
			if it.Content != "" {
				m.Content = protocol.Text(it.Content)
			}
			if len(it.ToolCalls) > 0 {
				m.ToolCalls = append([]chat.ToolCall(nil), it.ToolCalls...)
				pending = append(pending, it.ToolCalls...)
			}
			msgs = append(msgs, m)
		case *ToolResult:
			for j, c := range pending {
				if c.ID == it.ToolCallID {
					pending = append(pending[:j], pending[j+1:]...)
					msgs = append(msgs, chat.Message{Role: chat.Tool, ToolCallID: it.ToolCallID, Content: it.Content})
					break
				}
			}
		case *User:
			flush()
			msgs = append(msgs, chat.Message{Role: chat.User, Content: it.Content})
		case *Notice:
			if isMarker(it.Content) {
				continue // snapshot and rewind bookkeeping, not for the model
			}
			flush()
			msgs = append(msgs, chat.Message{Role: chat.User, Content: protocol.Text(it.Content)})
		case *Terminal:
			flush()
			text := it.StatusText()
			if text == "" {
				continue
			}
			if last := msgs[len(msgs)-1]; last.Role == chat.Assistant && last.Text() == text {
				continue // the final answer is already there as an assistant item
			}
			msgs = append(msgs, chat.Message{Role: chat.Assistant, Content: protocol.Text(text)})
		}
	}
	flush()
	return msgs
}

// StatusText is how a terminal reads in the projection: the final answer
// for Finished (nothing when blank or a context-ceiling text), nothing for
// ContextYield, and "[agent <status>]" plus "\n<reason>" for the others.
func (t *Terminal) StatusText() string {
	status := func(label, reason string) string {
		if strings.TrimSpace(reason) == "" {
			return label
		}
		return label + "\n" + reason
	}
	switch t.Kind {
	case Finished:
		if strings.TrimSpace(t.Message) == "" || strings.HasPrefix(t.Message, ContextCeilingPrefix) {
			return ""
		}
		return t.Message
	case Aborted:
		return status("[agent aborted]", t.Message)
	case Interrupted:
		return status("[agent interrupted]", t.Message)
	case Failed:
		return status("[agent failed]", t.Message)
	case MaxStepsExhausted:
		return status("[agent failed]", MaxStepsText)
	}
	return ""
}

func summaryText(s *Summary) string {
	return summaryHeader + strconv.Itoa(s.From) + ".." + strconv.Itoa(s.To) + "\n" + s.Content
}

// coverage reports which events a later summary covers (by index) and,
// per sequence, the uncovered summaries whose range starts there, in log
// order. A difference array keeps it linear in events plus summaries.
// Summaries that a rewind hides (hidden, by index; nil for none) neither
// cover nor show.
func (s *Session) coverage(hidden []bool) ([]bool, map[int][]*Summary) {
	n := len(s.Events)
	diff := make([]int, n+2)
	var startsAt map[int][]*Summary
	for i, e := range s.Events {
		sum, ok := e.Item.(*Summary)
		if !ok || (hidden != nil && hidden[i]) {
			continue
		}
		// Summary at index i covers earlier events with sequence in range;
		// sequences are contiguous so event index = sequence-1.
		lo, hi := max(sum.From, 1), min(sum.To, i) // i == own sequence - 1
		if lo <= hi {
			diff[lo-1]++
			diff[hi]--
		}
	}
	covered := make([]bool, n)
	run := 0
	for i := range covered {
		run += diff[i]
		covered[i] = run > 0
	}
	for i, e := range s.Events {
		if sum, ok := e.Item.(*Summary); ok && !covered[i] && (hidden == nil || !hidden[i]) {
			if startsAt == nil {
				startsAt = make(map[int][]*Summary)
			}
			startsAt[sum.From] = append(startsAt[sum.From], sum)
		}
	}
	return covered, startsAt
}

// CheckpointCut is the largest sequence ≤ to at which no tool call is
// awaiting its result — a safe end for a compaction range. A batch whose
// results never arrived keeps every later boundary unsafe.
func (s *Session) CheckpointCut(to int) (int, bool) {
	pending := map[string]int{}
	open := 0
	cut, ok := 0, false
	for _, e := range s.Events {
		if e.Sequence > to {
			break
		}
		switch it := e.Item.(type) {
		case *Assistant:
			for _, c := range it.ToolCalls {
				pending[c.ID]++
				open++
			}
		case *ToolResult:
			if pending[it.ToolCallID] > 0 {
				pending[it.ToolCallID]--
				open--
			}
		}
		if open == 0 {
			cut, ok = e.Sequence, true
		}
	}
	return cut, ok
}
