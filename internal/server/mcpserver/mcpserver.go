// Package mcpserver offers the OpenSeek agent to other agents as an MCP
// server over stdio (`openseek mcp serve`).
//
// The server has two tools:
//
//	run      {task}              → {answer, session_id}  a new session
//	continue {session_id, task}  → {answer, session_id}  a further turn
//
// Each result carries {answer, session_id} as structured content and, as
// MCP recommends, the same JSON as its text content, with what a person
// should read about the turn beside them: its warnings (an unverified
// claim of the answer, each network connection of a sandboxed command),
// what its compactions summarised, and the context's health. A task that
// fails is an error result whose text says why (and those notes) and
// whose structured content still names the session, so the caller can
// continue it.
//
// The package knows nothing of the engine: it drives a Runner, which the
// CLI implements on top of the engine. Serve speaks MCP through the go-sdk
// server on the given reader and writer and returns when the client hangs
// up (nil) or ctx ends (ctx.Err()). Concurrent calls reach the Runner
// concurrently; serialising turns of one session is the Runner's job.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/protocol"
)

// Runner runs one agent task. sessionID "" starts a new session; the
// Answer is the final answer of the turn, the session it ran in, and the
// turn's notes (Answer.Note each event of the turn). A failed turn
// returns its error with the session and notes so far.
type Runner interface {
	Run(ctx context.Context, task, sessionID string) (Answer, error)
}

// RunArgs are the arguments of the "run" tool.
type RunArgs struct {
	Task string `json:"task" jsonschema:"what the agent should do, in plain words"`
}

// ContinueArgs are the arguments of the "continue" tool.
type ContinueArgs struct {
	SessionID string `json:"session_id" jsonschema:"the session_id a previous run or continue returned"`
	Task      string `json:"task" jsonschema:"the follow-up request"`
}

// Answer is the structured result of both tools.
type Answer struct {
	Answer    string `json:"answer"`
	SessionID string `json:"session_id"`
	// Warnings are the turn's warnings in the words every face shows
	// (protocol.Warning): an answer's unverified claim, each connection
	// a command made through the network allowlist, a retried request.
	Warnings []string `json:"warnings,omitempty"`
	// Compactions say what each compaction of the turn summarised.
	Compactions []string `json:"compactions,omitempty"`
	// Context is the context's health after the turn ("context 41k/128k
	// · 1 compaction").
	Context string `json:"context,omitempty"`
}

// Note takes what a person should read from one event of the turn.
func (a *Answer) Note(e protocol.Event) {
	if w, ok := protocol.Warning(e); ok {
		a.Warnings = append(a.Warnings, w)
		return
	}
	switch e := e.(type) {
	case protocol.CompactionReport:
		a.Compactions = append(a.Compactions, render.CompactionText(e))
	case protocol.ContextHealth:
		a.Context = render.ContextLine(e)
	}
}

// notes are the notes as lines for an error result's text.
func (a Answer) notes() string {
	var b strings.Builder
	for _, w := range a.Warnings {
		b.WriteString("\nwarning: " + w)
	}
	for _, c := range a.Compactions {
		b.WriteString("\n" + c)
	}
	if a.Context != "" {
		b.WriteString("\n" + a.Context)
	}
	return b.String()
}

// NewServer is the MCP server Serve runs, for callers that want another
// transport.
func NewServer(r Runner) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "openseek", Title: "OpenSeek coding agent", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{
		Name: "run",
		Description: "Run a task with the OpenSeek coding agent in its workspace. " +
			"Returns the agent's final answer and the session_id; pass that to continue for a follow-up.",
	}, func(ctx context.Context, _ *sdk.CallToolRequest, a RunArgs) (*sdk.CallToolResult, Answer, error) {
		return runTask(ctx, r, "run", a.Task, "")
	})
	sdk.AddTool(s, &sdk.Tool{
		Name:        "continue",
		Description: "Continue an OpenSeek session with a follow-up task. Returns the new answer and the session_id.",
	}, func(ctx context.Context, _ *sdk.CallToolRequest, a ContinueArgs) (*sdk.CallToolResult, Answer, error) {
		if strings.TrimSpace(a.SessionID) == "" {
			return errorResult("error: continue requires session_id (from an earlier run)"), Answer{}, nil
		}
		return runTask(ctx, r, "continue", a.Task, a.SessionID)
	})
	return s
}

func runTask(ctx context.Context, r Runner, toolName, task, sessionID string) (*sdk.CallToolResult, Answer, error) {
	if strings.TrimSpace(task) == "" {
		return errorResult(fmt.Sprintf("error: %s requires task", toolName)), Answer{SessionID: sessionID}, nil
	}
	out, err := r.Run(ctx, task, sessionID)
	if out.SessionID == "" {
		out.SessionID = sessionID
	}
	if err != nil {
		msg := "error: " + err.Error()
		if out.SessionID != "" {
			msg += fmt.Sprintf(" (session_id %s)", out.SessionID)
		}
		return errorResult(msg + out.notes()), out, nil
	}
	// Content left empty: the SDK fills it with the JSON of out.
	return nil, out, nil
}

func errorResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// Serve runs the MCP server for r on in/out (newline-delimited JSON-RPC,
// the stdio transport) until the client closes in or ctx ends.
func Serve(ctx context.Context, r Runner, in io.Reader, out io.Writer) error {
	t := &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	err := NewServer(r).Run(ctx, t)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return fmt.Errorf("mcp serve: %w", err)
}

// nopWriteCloser keeps the caller's writer (usually os.Stdout) open when
// the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
