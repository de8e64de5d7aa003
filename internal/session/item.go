package session

import (
	"encoding/json"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

// Item is the payload of one event: *User, *Assistant, *ToolResult,
// *Notice, *Summary or *Terminal.
//
// The method is ItemKind rather than Kind because Terminal needs a Kind
// field (its TerminalKind) and Go forbids a field and method of one name.
type Item interface {
	// ItemKind is the item's on-disk tag (KindUser, ...).
	ItemKind() string
}

// User is user-authored model input: the initial task, steering text or an
// engine-submitted prompt.
type User struct {
	Content protocol.Content
	// SubmissionID is the controller's tag echoed from a serve prompt or
	// steer command; nil when untagged.
	SubmissionID *string `wire:",omitempty"`
}

// Assistant is one model response.
type Assistant struct {
	// Content is the visible text; "" for tool-only responses.
	Content   string
	ToolCalls []chat.ToolCall
	// Reasoning is nil when the provider returned none; "" is explicit.
	Reasoning *string `wire:"reasoning_content,omitempty"`
	// IsReplay marks a checkpoint re-appending an answer an earlier durable
	// step already owns.
	IsReplay bool `wire:",omitempty"`
	// Usage is set only on the first durable record of a response.
	Usage *protocol.Usage `wire:",omitempty"`
	// Model is the model that was asked ("provider/name", or the
	// endpoint's model name); CostUSD is what the response cost, decided
	// once when it arrived (llm.Price.Of), nil when the price is unknown.
	// Both are OpenSeek extensions of the format, written only with
	// Usage; every face reads the cost from here (Session.Cost).
	Model   string   `wire:",omitempty"`
	CostUSD *float64 `wire:",omitempty"`
	// ReasoningSignature and ReasoningItems are opaque provider state that
	// must travel back with the message (Anthropic's thinking signature,
	// the Responses API's encrypted reasoning). OpenSeek extensions of the
	// format, written only when present; other readers ignore them.
	ReasoningSignature string          `wire:",omitempty"`
	ReasoningItems     json.RawMessage `wire:",omitempty"`
}

// ToolResult is the local result of one assistant tool call.
type ToolResult struct {
	ToolCallID string
	ToolName   string
	Content    protocol.Content
	IsError    bool
	// Brief is a one-line summary for display; never replayed to the model.
	Brief *string `wire:",omitempty"`
	// Data is machine-readable output kept byte for byte; never projected.
	// nil means absent.
	Data json.RawMessage `wire:",omitempty,keepnull"`
	// Parent, an OpenSeek extension, is the id of the tool call that made
	// this call on its own (the script tool), "" for the model's calls.
	// Such a result answers no call of the model: the projection leaves
	// it out, and its call id is synthetic ("<parent>.<n>").
	Parent string `wire:",omitempty"`
	// Arguments are the arguments of a child call (the model's calls have
	// theirs in the assistant item); "" when absent.
	Arguments string `wire:",omitempty"`
}

// Notice is runtime-injected context (plan reminders, goal markers, job
// notices); on disk its kind is "runtime_notice".
type Notice struct{ Content string }

// Summary is a compaction record replacing the inclusive sequence range
// From..To in the projection. The covered events stay on disk.
type Summary struct {
	Content string
	From    int `wire:"from_sequence"`
	To      int `wire:"to_sequence"`
}

// TerminalKind is how a turn ended.
type TerminalKind string

// Terminal kinds.
const (
	Finished          TerminalKind = "finished"
	ContextYield      TerminalKind = "context_yield"
	Aborted           TerminalKind = "aborted"
	Interrupted       TerminalKind = "interrupted"
	MaxStepsExhausted TerminalKind = "max_steps_exhausted"
	Failed            TerminalKind = "failed"
)

// Terminal records how a turn ended.
type Terminal struct {
	Kind TerminalKind
	// Message is the final answer (Finished), the checkpoint text
	// (ContextYield) or the reason (Aborted, Interrupted, Failed); it is
	// empty and not written for MaxStepsExhausted.
	Message string
	// Legacy is set on a ContextYield read from the legacy form
	// {"kind":"finished","message":"[context ceiling]…"} or a
	// MaxStepsExhausted read from {"kind":"failed","message":"max steps
	// exhausted"}; such terminals are written back in that legacy form so a
	// re-written file keeps its bytes. Ignored for the other kinds.
	Legacy bool
}

// Event is one durable, sequenced log entry.
type Event struct {
	// Sequence is 1-based and contiguous within a session.
	Sequence int
	// TS is the wall-clock time of the append in unix milliseconds (0 for
	// hand-written events).
	TS   int64
	Item Item
}

// Session is a loaded session: its identity, fixed system prompt and the
// events in sequence order. A Session obtained from a Store or Writer is a
// snapshot; callers must not mutate it.
type Session struct {
	ID           string
	SystemPrompt string
	Events       []Event

	// tornTail records that the file's final line lacked its newline (and
	// was dropped if it did not decode); the next append rewrites the file.
	tornTail bool
}

// LastSequence is the sequence of the last event, 0 for an empty session.
func (s *Session) LastSequence() int {
	if len(s.Events) == 0 {
		return 0
	}
	return s.Events[len(s.Events)-1].Sequence
}

// NeedsTailRepair reports whether the file this session was loaded from
// ended in an unterminated (possibly torn) line that the next append will
// repair by rewriting the file.
func (s *Session) NeedsTailRepair() bool { return s.tornTail }

// LastTerminal is how the latest turn ended: scanning backwards, the newest
// terminal wins unless a later user item opened a new turn; notices and
// summaries after a terminal do not hide it.
func (s *Session) LastTerminal() (*Terminal, bool) {
	for i := len(s.Events) - 1; i >= 0; i-- {
		switch it := s.Events[i].Item.(type) {
		case *Terminal:
			return it, true
		case *User:
			return nil, false
		}
	}
	return nil, false
}
