// Package llm talks to language models. A Provider streams one model
// response for a request; adapters translate the provider-neutral chat
// vocabulary (package chat) to a vendor's wire format and stand on one
// shared client (API): the POST, the idle watch, the classification of
// every failure into an *Error and the redaction of the key are the same
// code for all of them. Retries and failover wrap a Provider; the turn
// loop never sees the vendor.
//
// A conversation's requests share a byte-identical prefix; a PrefixCache
// on the Request lets an adapter keep its encoding of that prefix and
// encode only the new messages: encoding a request at step 1,000 costs
// about what it costs at step 10, plus one copy of the bytes, and the
// bytes sent are exactly those of the whole encoding.
//
// A conversation's calls share one connection: API reads a finished
// stream's body to its end in the background, after its end marker, so
// that an HTTP/1.1 connection goes back to the pool instead of being
// closed and the next step pays no new TCP and TLS handshake.
package llm

import (
	"context"
	"encoding/json"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

// ToolSpec is a function the model may call.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema of the arguments object
}

// Request is one model call.
type Request struct {
	Model     string
	Messages  []chat.Message
	Tools     []ToolSpec
	Thinking  string // "no", "high", "max"; "" = the provider's default
	MaxTokens int    // 0 = the provider's default
	// Cache, when set, lets the adapter reuse its encoding of
	// Messages[:Stable] from earlier requests of the conversation (see
	// PrefixCache for the contract). The bytes sent do not depend on it.
	Cache  *PrefixCache
	Stable int
}

// Response is one complete model response.
type Response struct {
	Content   string
	Reasoning *string // nil when the provider returned no reasoning
	// ReasoningItems is opaque reasoning state to send back on the
	// assistant message (chat.Message.ReasoningItems); nil when none.
	ReasoningItems json.RawMessage
	// ReasoningSignature is the provider's opaque proof of Reasoning
	// (Anthropic's thinking signature), to send back unchanged with it
	// (chat.Message.ReasoningSignature); "" when it sent none.
	ReasoningSignature string
	ToolCalls          []chat.ToolCall
	Usage              protocol.Usage
	FinishReason       string
	Model              string // the model that answered, as the provider named it
}

// DeltaKind says what a Delta carries.
type DeltaKind int

const (
	TextDelta      DeltaKind = iota // a fragment of visible text
	ReasoningDelta                  // a fragment of reasoning
	Retry                           // the request failed and is about to be retried
)

// Delta is a streamed fragment or a retry notice.
type Delta struct {
	Kind        DeltaKind
	Text        string // TextDelta, ReasoningDelta
	Attempt     int    // Retry: the attempt about to be made (2 = first retry)
	MaxAttempts int    // Retry
	Reason      string // Retry: why the previous attempt failed
}

// Provider streams one model response. on is called from the calling
// goroutine, in order, before Stream returns. A Provider must honour ctx.
type Provider interface {
	Stream(ctx context.Context, req Request, on func(Delta)) (*Response, error)
}
