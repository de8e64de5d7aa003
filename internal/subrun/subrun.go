// Package subrun holds what the delegation entry points share: the JSON
// request of `openseek run --input-format json` and the input of
// `openseek subrun <kind>` (reference openseek-cli.md §3.3 and §6), the
// preset kinds (echo, explore, worker and the general run), their input
// checks with the reference's exact texts, the prompt each kind gives the
// model, the run result file, the worker's git worktree and the lease that
// lets one delegated general run work in a workspace at a time.
//
// Everything here is checked before anything runs: a request that fails
// Parse or Validate creates no workspace, session or worktree.
package subrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/openseek/openseek/protocol"
)

// The preset kinds. General is the kind of a request without one.
const (
	Echo    = "echo"
	Explore = "explore"
	Worker  = "worker"
	General = "general"
)

// Kinds are the kinds `openseek subrun` accepts, in help order.
var Kinds = []string{Echo, Explore, Worker, General}

// Request is one JSON request of `run --input-format json`.
type Request struct {
	Version   int             `json:"version"`
	RequestID string          `json:"request_id,omitempty"`
	Kind      string          `json:"kind,omitempty"`
	Input     json.RawMessage `json:"input"`
	Schema    json.RawMessage `json:"schema,omitempty"`
}

// ParseRequest decodes a request and checks its envelope: valid JSON, a
// supported version, no output schema. The input is checked by Validate.
func ParseRequest(data []byte) (Request, error) {
	var req Request
	data = bytes.TrimSpace(data)
	if err := json.Unmarshal(data, &req); err != nil {
		return Request{}, fmt.Errorf("the request on stdin is not JSON: %s", JSONError(data, err))
	}
	if req.Version != 1 {
		return req, fmt.Errorf("unsupported request version %d", req.Version)
	}
	if len(req.Schema) > 0 && string(req.Schema) != "null" {
		return req, errors.New("this engine does not support the request's `schema`")
	}
	return req, nil
}

// EchoUsage is what the modelless echo kind reports as its usage.
var EchoUsage = protocol.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10, PromptCacheMissTokens: 7}

// Input is the decoded input of a model-driven kind.
type Input struct {
	Task       string `json:"task"`
	Query      string `json:"query"`
	WorkerRoot string `json:"worker_root"`
}

// Validate checks input for kind ("" = general) and returns the decoded
// input. Its errors are the reference's texts.
func Validate(kind string, input json.RawMessage) (Input, error) {
	var in Input
	switch kind {
	case Echo:
		if len(bytes.TrimSpace(input)) == 0 {
			return in, errors.New("echo requires an input")
		}
		return in, nil
	case Explore, Worker, General, "":
	default:
		return in, fmt.Errorf("unknown kind: %s", kind)
	}
	obj := bytes.HasPrefix(bytes.TrimSpace(input), []byte("{"))
	if obj {
		_ = json.Unmarshal(input, &in) // a mistyped field reads as empty, refused below
	}
	if kind == "" || kind == General {
		var s string
		if !obj && json.Unmarshal(input, &s) == nil {
			in.Task = s // a bare string is the task
		}
	}
	switch kind {
	case Explore:
		if strings.TrimSpace(in.Query) == "" {
			return in, errors.New("explore requires a non-empty query")
		}
	case Worker:
		if in.WorkerRoot == "" || !filepath.IsAbs(in.WorkerRoot) {
			return in, errors.New("worker input requires an absolute `worker_root`")
		}
		if strings.TrimSpace(in.Task) == "" {
			return in, errors.New("worker input needs a non-empty `task`")
		}
	default:
		if strings.TrimSpace(in.Task) == "" {
			return in, errors.New("a general request's input needs a non-empty `task`")
		}
	}
	return in, nil
}

// Prompt is the task text the model gets for a model-driven kind.
func Prompt(kind string, in Input) string {
	switch kind {
	case Explore:
		return "Explore the code base to answer the question below. You are read-only: read, search and run known-safe commands, change nothing. Answer with a concise report: the facts found, with the paths and lines that show them.\n\nQuestion: " + in.Query
	case Worker:
		return in.Task + "\n\n(You work in your own git worktree, a private copy of the repository on its own branch: change files freely there; the parent merges your branch. End with a concise report of what you changed and how you checked it.)"
	}
	return in.Task
}

// Approval is the permission mode a kind runs in: explore is read-only
// (plan), everything else refuses escalation (never).
func Approval(kind string) string {
	if kind == Explore {
		return "plan"
	}
	return "never"
}

// Result statuses.
const (
	Completed   = "completed"
	Failed      = "failed"
	Interrupted = "interrupted"
)

// Result is the JSON run result (--result-file). Field order is the
// reference's key order; request_id and kind appear only when known.
type Result struct {
	Version   int             `json:"version"`
	RequestID string          `json:"request_id,omitempty"`
	Kind      string          `json:"kind,omitempty"`
	Status    string          `json:"status"`
	Output    json.RawMessage `json:"output,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Usage     *protocol.Usage `json:"usage,omitempty"`
	Steps     *int            `json:"steps,omitempty"`
}

// Marshal is the result as one JSON line (no trailing newline).
func (r Result) Marshal() []byte {
	r.Version = 1
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r) // strings, ints and valid raw JSON always encode
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Report is the final stdout line of `openseek subrun`:
// {"subrun_report":<report>}.
func Report(report json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString(`{"subrun_report":`)
	if len(bytes.TrimSpace(report)) == 0 {
		report = json.RawMessage("null")
	}
	if err := json.Compact(&b, report); err != nil {
		b.WriteString("null")
	}
	b.WriteString("}")
	return b.Bytes()
}

// Compact returns v compacted, for an output taken from input.
func Compact(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return v
	}
	return b.Bytes()
}

// JSONError words a decoding error as OpenSeek's JSON parser
// (moonbitlang/core/json) does: "Invalid character 'o' at line 1, column
// 1" for `not json`. Lines count from 1 and columns from 0, in UTF-16
// code units as MoonBit strings are; the character is shown as MoonBit
// shows a Char. Otherwise "Unexpected end of input".
func JSONError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if strings.Contains(se.Error(), "unexpected end of JSON input") || off > len(data) || off <= 0 {
			return "Unexpected end of input"
		}
		// encoding/json's Offset is just past the offending byte; step
		// back to the start of its character.
		at := off - 1
		for at > 0 && !utf8.RuneStart(data[at]) {
			at--
		}
		line, col := 1, 0
		for _, r := range string(data[:at]) {
			if r == '\n' {
				line, col = line+1, 0
			} else {
				col += len(utf16.Encode([]rune{r}))
			}
		}
		r, _ := utf8.DecodeRune(data[at:])
		return fmt.Sprintf("Invalid character %s at line %d, column %d", quoteChar(r), line, col)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("`%s` must be a JSON %s, not %s", te.Field, te.Type.Kind(), te.Value)
		}
		return fmt.Sprintf("expected a JSON object, not %s", te.Value)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "Unexpected end of input"
	}
	return err.Error()
}

// quoteChar shows a character as MoonBit's Char does: '\n', '\t', '\x0c'
// for control characters, the character itself otherwise.
func quoteChar(r rune) string {
	switch r {
	case '\n':
		return `'\n'`
	case '\r':
		return `'\r'`
	case '\t':
		return `'\t'`
	case '\b':
		return `'\b'`
	case '\\':
		return `'\\'`
	case '\'':
		return `'\''`
	case utf8.RuneError:
		return `'\u{fffd}'`
	}
	if r < 0x20 || r == 0x7f {
		return fmt.Sprintf("'\\x%02x'", r)
	}
	return "'" + string(r) + "'"
}
