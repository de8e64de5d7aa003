package llmtest

import (
	"time"

	"github.com/openseek/openseek/protocol"
)

// Turn is one scripted HTTP response: Reply, Fail, Stall or Cut.
type Turn interface{ isTurn() }

// Reply streams a complete answer: reasoning, then text, then tool calls,
// then a finish chunk, a usage chunk and [DONE].
type Reply struct {
	Text, Reasoning string
	Calls           []Call
	Usage           *protocol.Usage // nil = estimated from the request
	ChunkSize       int             // runes per content chunk; 0 = 16
	Delay           time.Duration   // pause before each chunk
	// Summary marks the answer to a compaction request: the request it
	// answers and the one after it may break the prefix (the history was
	// rewritten by a summary).
	Summary bool
}

// Call is a scripted tool call. An empty ID becomes call_<request>_<n>.
type Call struct{ ID, Name, Args string }

// Fail answers with an HTTP error. Status 0 means 500. An empty Body is an
// OpenAI-style JSON error; a Body not starting with '{' is sent as HTML.
// RetryAfter, when set, is sent as the Retry-After header.
type Fail struct {
	Status     int
	Body       string
	RetryAfter string
}

// Stall sends the first After chunks of a filler reply, then hangs until
// the client gives up (or the server closes). After == 0 hangs before
// sending even the response headers.
type Stall struct{ After int }

// Cut sends the first After chunks of Reply, then drops the connection
// without [DONE].
type Cut struct {
	Reply
	After int
}

func (Reply) isTurn() {}
func (Fail) isTurn()  {}
func (Stall) isTurn() {}
func (Cut) isTurn()   {}

// Text is a Reply of visible text only.
func Text(s string) Reply { return Reply{Text: s} }

// Calls is a Reply of tool calls only.
func Calls(calls ...Call) Reply { return Reply{Calls: calls} }
