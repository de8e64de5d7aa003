package importer

import (
	"fmt"
	"strings"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// Transcript is an imported conversation.
type Transcript struct {
	// Source is "codex" or "claude"; SourceID the session id the source
	// gave it; Cwd the working directory it ran in ("" when unrecorded).
	Source, SourceID, Cwd string
	// Items are the session items in order.
	Items []session.Item
	// Warnings are what was skipped or repaired, one line each.
	Warnings []string
}

// builder assembles session items so that their projection is a valid
// history (see the package comment).
type builder struct {
	t           Transcript
	cur         *session.Assistant // the assistant item still taking output
	lastA       *session.Assistant // the latest assistant item, which usage is for
	pending     map[string]string  // unanswered call id -> our tool name
	model       string             // the source model (Codex: of the latest turn_context)
	lastMessage string             // Claude: the id of the latest assistant message
	claude      []claudeMessage    // Claude: the messages read, in file order
	parents     map[string]string  // Claude: entry uuid -> parent uuid
}

func newBuilder(source string) *builder {
	return &builder{t: Transcript{Source: source}, pending: map[string]string{}, parents: map[string]string{}}
}

func (b *builder) warnf(format string, args ...any) {
	b.t.Warnings = append(b.t.Warnings, fmt.Sprintf(format, args...))
}

func (b *builder) last() session.Item {
	if len(b.t.Items) == 0 {
		return nil
	}
	return b.t.Items[len(b.t.Items)-1]
}

// assistant returns the assistant item that takes the next output: the
// open one unless it already made tool calls (output after calls belongs
// to the next step).
func (b *builder) assistant() *session.Assistant {
	if b.cur == nil || len(b.cur.ToolCalls) > 0 {
		b.cur = &session.Assistant{}
		b.lastA = b.cur
		b.t.Items = append(b.t.Items, b.cur)
	}
	return b.cur
}

func (b *builder) text(s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	a := b.assistant()
	a.Content = joinText(a.Content, s)
}

func (b *builder) reasoning(s, signature string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	a := b.assistant()
	if a.Reasoning == nil {
		a.Reasoning = new(string)
	}
	*a.Reasoning = joinText(*a.Reasoning, s)
	if signature != "" {
		a.ReasoningSignature = signature
	}
}

func (b *builder) call(id string, c mapped) {
	if id == "" {
		b.warnf("a %s call without an id was dropped", c.name)
		return
	}
	a := b.assistant()
	a.ToolCalls = append(a.ToolCalls, chat.ToolCall{ID: id, Name: c.name, Arguments: c.args})
	b.pending[id] = c.name
}

func (b *builder) result(id, content string, isError bool) {
	name, ok := b.pending[id]
	if !ok {
		b.warnf("a tool result for unknown call %q was dropped", id)
		return
	}
	delete(b.pending, id)
	b.cur = nil
	b.t.Items = append(b.t.Items, &session.ToolResult{ToolCallID: id, ToolName: name, Content: protocol.Text(content), IsError: isError})
}

// usage records a response's token counts on the assistant item it
// produced, adding to what an earlier response merged into it recorded.
func (b *builder) usage(u protocol.Usage, model string) {
	a := b.lastA
	if a == nil {
		return
	}
	if a.Usage != nil {
		u = a.Usage.Add(u)
	}
	a.Usage = &u
	if model != "" {
		a.Model = model
	}
}

func (b *builder) user(s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	b.finishTurn()
	b.cur = nil
	if u, ok := b.last().(*session.User); ok {
		u.Content = protocol.Text(joinText(u.Content.Text(), s))
		return
	}
	b.t.Items = append(b.t.Items, &session.User{Content: protocol.Text(s)})
}

// summary stands for everything imported so far, as a compaction does.
func (b *builder) summary(s string) {
	if strings.TrimSpace(s) == "" || len(b.t.Items) == 0 {
		return
	}
	b.finishTurn()
	b.cur = nil
	// A new session's sequences are the items' positions, from 1.
	b.t.Items = append(b.t.Items, &session.Summary{Content: s, From: 1, To: len(b.t.Items)})
}

// finishTurn ends a turn whose last step answered without tool calls.
func (b *builder) finishTurn() {
	if a, ok := b.last().(*session.Assistant); ok && len(a.ToolCalls) == 0 {
		b.t.Items = append(b.t.Items, &session.Terminal{Kind: session.Finished, Message: a.Content})
	}
}

func (b *builder) done() (*Transcript, error) {
	b.finishTurn()
	if len(b.pending) > 0 {
		b.warnf("%d tool call(s) have no recorded result; they read as failed", len(b.pending))
	}
	hasUser := false
	for _, it := range b.t.Items {
		if _, ok := it.(*session.User); ok {
			hasUser = true
			break
		}
	}
	if !hasUser {
		return nil, fmt.Errorf("no user message found: is this a %s transcript?", sourceName(b.t.Source))
	}
	return &b.t, nil
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

func sourceName(source string) string {
	switch source {
	case Codex:
		return "Codex CLI"
	case Claude:
		return "Claude Code"
	}
	return source
}
