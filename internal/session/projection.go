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
	p := s.project()
	p.flush()
	return p.msgs
}

// project takes in every event; the tool calls still waiting for their
// result are left pending.
func (s *Session) project() projector {
	p := projector{msgs: make([]chat.Message, 0, len(s.Events)+1)}
	p.msgs = append(p.msgs, chat.Message{Role: chat.System, Content: protocol.Text(s.SystemPrompt)})
	hidden := s.rewound()
	covered, startsAt := s.coverage(hidden)
	for i, e := range s.Events {
		for _, sum := range startsAt[e.Sequence] {
			p.flush()
			p.msgs = append(p.msgs, chat.Message{Role: chat.User, Content: protocol.Text(summaryText(sum))})
		}
		if covered[i] || (hidden != nil && hidden[i]) {
			continue
		}
		p.add(e.Item)
	}
	return p
}

// projector builds a projection event by event. Messages, once appended,
// never change: only the synthetic results of pending calls are decided
// later (by the next event, or at the end).
type projector struct {
	msgs    []chat.Message
	pending []chat.ToolCall // calls awaiting their result, in order
}

// flush gives every pending call a synthetic error result.
func (p *projector) flush() {
	p.msgs = appendMissing(p.msgs, p.pending)
	p.pending = p.pending[:0]
}

func appendMissing(msgs []chat.Message, calls []chat.ToolCall) []chat.Message {
	for _, c := range calls {
		msgs = append(msgs, chat.Message{Role: chat.Tool, ToolCallID: c.ID, Content: protocol.Text(missingResultPrefix + c.Name)})
	}
	return msgs
}

// add projects one event's item that no summary covers and no rewind
// hides.
func (p *projector) add(item Item) {
	switch it := item.(type) {
	case *Assistant:
		p.flush()
		m := chat.Message{Role: chat.Assistant, Reasoning: it.Reasoning,
			ReasoningSignature: it.ReasoningSignature, ReasoningItems: it.ReasoningItems}
		if it.Content != "" {
			m.Content = protocol.Text(it.Content)
		}
		if len(it.ToolCalls) > 0 {
			m.ToolCalls = append([]chat.ToolCall(nil), it.ToolCalls...)
			p.pending = append(p.pending, it.ToolCalls...)
		}
		p.msgs = append(p.msgs, m)
	case *ToolResult:
		if it.Parent != "" {
			return // a tool's own call: the model saw only the tool's result
		}
		for j, c := range p.pending {
			if c.ID == it.ToolCallID {
				p.pending = append(p.pending[:j], p.pending[j+1:]...)
				p.msgs = append(p.msgs, chat.Message{Role: chat.Tool, ToolCallID: it.ToolCallID, Content: it.Content})
				break
			}
		}
	case *User:
		p.flush()
		p.msgs = append(p.msgs, chat.Message{Role: chat.User, Content: it.Content})
	case *Notice:
		if IsMarker(it.Content) || IsNetworkMarker(it.Content) {
			return // bookkeeping and the network log, not for the model
		}
		p.flush()
		p.msgs = append(p.msgs, chat.Message{Role: chat.User, Content: protocol.Text(it.Content)})
	case *Terminal:
		p.flush()
		text := it.StatusText()
		if text == "" {
			return
		}
		if last := p.msgs[len(p.msgs)-1]; last.Role == chat.Assistant && last.Text() == text {
			return // the final answer is already there as an assistant item
		}
		p.msgs = append(p.msgs, chat.Message{Role: chat.Assistant, Content: protocol.Text(text)})
	}
}

// Projection is Session.Messages kept up to date as a log grows: each
// call takes in only the events appended since the one before, so that a
// step of a long session projects in time proportional to what is new.
// Events that change what earlier events project to (a summary, a rewind
// marker), or a session that does not continue the one seen last, make it
// project afresh. The zero Projection is ready; it is not safe for
// concurrent use.
type Projection struct {
	sys  string
	n    int  // events taken in
	last Item // the item of the n-th event, to tell a continuation
	p    projector
}

// Messages returns exactly s.Messages(). stable is how many of its
// leading messages are the same in every result since the projection was
// last made afresh; fresh reports that this call made it afresh. The
// result shares memory with the projection: callers must not modify it.
func (pr *Projection) Messages(s *Session) (msgs []chat.Message, stable int, fresh bool) {
	if s.SystemPrompt != pr.sys || len(s.Events) < pr.n || (pr.n > 0 && s.Events[pr.n-1].Item != pr.last) {
		pr.rebuild(s)
		fresh = true
	} else {
		for _, e := range s.Events[pr.n:] {
			if reprojects(e.Item) {
				pr.rebuild(s)
				fresh = true
				break
			}
			pr.p.add(e.Item)
			pr.n++
			pr.last = e.Item
		}
	}
	stable = len(pr.p.msgs)
	msgs = pr.p.msgs[:stable:stable]
	if len(pr.p.pending) > 0 {
		msgs = appendMissing(msgs, pr.p.pending) // a copy: the results may still come
	}
	return msgs, stable, fresh
}

func (pr *Projection) rebuild(s *Session) {
	pr.sys, pr.n, pr.p = s.SystemPrompt, len(s.Events), s.project()
	pr.last = nil
	if pr.n > 0 {
		pr.last = s.Events[pr.n-1].Item
	}
}

// reprojects reports whether appending item changes the projection of
// earlier events.
func reprojects(item Item) bool {
	switch it := item.(type) {
	case *Summary:
		return true
	case *Notice:
		_, ok := parseRewind(it.Content)
		return ok
	}
	return false
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
