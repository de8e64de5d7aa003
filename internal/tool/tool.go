// Package tool defines what a tool is — a name, a JSON schema and an
// executor — and the registry the turn loop dispatches through. Tools do
// not know about the loop: they get a context, their arguments and an Env.
// Built-in tools live in sub-packages; MCP tools enter the same registry.
//
// Key invariants:
//   - A Registry lists its tools sorted by name, so the tool block of every
//     request is byte-identical between turns (provider prompt caches hit).
//   - Func computes a tool's JSON schema once, from the Go argument type,
//     and keeps it tight: no "$schema", no "additionalProperties" unless the
//     type asks for it (SchemaAdjuster), ["null", T] unions collapsed to T.
//   - Arguments that are not a JSON object, or miss a required field, or
//     carry a field of the wrong JSON type, never reach the tool: Run
//     returns an *ArgError whose text ("error: <tool> requires
//     arguments.<field>") is what the model sees. Unknown keys are ignored.
//   - Env.Resolve is the one gate between a model-supplied path and the
//     file system: the answer, after following every symlink, lies inside
//     the workspace (or an extra root), or it is an error.
package tool

import (
	"context"
	"encoding/json"

	"github.com/openseek/openseek/protocol"
)

// Control is what a tool asks of the turn loop besides answering.
type Control int

const (
	Respond Control = iota // an ordinary result; the turn goes on
	Finish                 // end the turn; Content's text is the final answer
	Abort                  // end the turn; Content's text is the reason
)

// Result is a tool's answer to one call.
type Result struct {
	Content protocol.Content // what the model sees
	IsError bool
	Brief   string          // one-line display summary; never shown to the model
	Data    json.RawMessage // machine-readable detail; never shown to the model
	Control Control
	// Notices are runtime notices (e.g. "[goal cleared]") the loop appends to
	// the session after this tool batch.
	Notices []string
	// Read, set by a file read, lets the loop answer a read of content
	// the model still has in context briefly (see agent's read ledger).
	Read *ReadMark
}

// Tool is a model-callable function.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage // JSON schema of the arguments object
	// Run executes one call. args is the raw JSON the model sent. An
	// *ArgError means the arguments did not decode or missed a required
	// field; the loop reports it as tool_call_decode_error.
	Run func(ctx context.Context, env *Env, args json.RawMessage) (Result, error)
	// Concurrent tools (sub-agents) may run at the same time as the other
	// concurrent calls of the same assistant message; results are still
	// recorded in call order.
	Concurrent bool
}
