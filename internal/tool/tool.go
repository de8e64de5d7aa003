// Package tool defines what a tool is — a name, a JSON schema and an
// executor — and the registry the turn loop dispatches through. Tools do
// not know about the loop: they get a context, their arguments and an Env.
// Built-in tools live in sub-packages; MCP tools enter the same registry.
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
}
