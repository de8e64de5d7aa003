package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openseek/openseek/protocol"
)

// ArgError reports arguments that did not decode or missed a required
// field. Msg is the full model-facing text.
type ArgError struct {
	Tool string
	Msg  string
}

func (e *ArgError) Error() string { return e.Msg }

// Result is the error result carrying e's text.
func (e *ArgError) Result() Result {
	return Result{Content: protocol.Text(e.Msg), IsError: true}
}

// MissingArg is the standard ArgError for a missing or mistyped field:
// "error: <tool> requires arguments.<field>".
func MissingArg(tool, field string) *ArgError {
	return &ArgError{Tool: tool, Msg: fmt.Sprintf("error: %s requires arguments.%s", tool, field)}
}

// Func builds a tool whose arguments decode into A, a struct. The schema is
// generated from A once, here: property names from json tags, descriptions
// from `jsonschema:"…"` tags, a field without omitempty/omitzero is
// required. A may implement SchemaAdjuster for enums and the like, and
// json.Unmarshaler for richer checks — an *ArgError it returns reaches the
// model unchanged. Func panics if A has no valid schema: that is a
// programming error found by the first test that builds the tool.
func Func[A any](name, description string, run func(ctx context.Context, env *Env, args A) Result) Tool {
	sch, err := schemaFor[A]()
	if err != nil {
		panic(fmt.Sprintf("tool %s: argument schema: %v", name, err))
	}
	return Tool{
		Name:        name,
		Description: description,
		Schema:      sch.raw,
		Run: func(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
			var args A
			if aerr := decodeArgs(name, raw, sch, &args); aerr != nil {
				return aerr.Result(), aerr
			}
			return run(ctx, env, args), nil
		},
	}
}

// decodeArgs checks raw against the top level of sch and decodes it into
// dst. Empty input counts as {} (some providers send "" for no arguments).
func decodeArgs(tool string, raw json.RawMessage, sch argSchema, dst any) *ArgError {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if !json.Valid(raw) {
		var v any
		reason := "invalid JSON"
		if err := json.Unmarshal(raw, &v); err != nil {
			reason = err.Error()
		}
		return &ArgError{Tool: tool, Msg: fmt.Sprintf("error: %s arguments are not valid JSON: %s", tool, reason)}
	}
	if raw[0] != '{' {
		return &ArgError{Tool: tool, Msg: fmt.Sprintf("error: %s requires object arguments", tool)}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return &ArgError{Tool: tool, Msg: fmt.Sprintf("error: %s requires object arguments", tool)}
	}
	for _, name := range sch.required {
		if v, ok := fields[name]; !ok || isNull(v) {
			return MissingArg(tool, name)
		}
	}
	for _, name := range sch.order {
		v, ok := fields[name]
		if !ok || isNull(v) {
			continue
		}
		if !hasJSONType(v, sch.types[name]) {
			return MissingArg(tool, name)
		}
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		var ae *ArgError
		if errors.As(err, &ae) {
			return ae
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return MissingArg(tool, te.Field)
		}
		return &ArgError{Tool: tool, Msg: fmt.Sprintf("error: %s arguments do not decode: %v", tool, err)}
	}
	return nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// hasJSONType reports whether the JSON value v (valid, not null) is of the
// schema type typ. An "integer" is a number literal without fraction or
// exponent, which is what encoding/json can put in an int.
func hasJSONType(v json.RawMessage, typ string) bool {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	c := v[0]
	switch typ {
	case "string":
		return c == '"'
	case "boolean":
		return c == 't' || c == 'f'
	case "object":
		return c == '{'
	case "array":
		return c == '['
	case "number":
		return c == '-' || (c >= '0' && c <= '9')
	case "integer":
		if c != '-' && (c < '0' || c > '9') {
			return false
		}
		return !bytes.ContainsAny(v, ".eE")
	}
	return true
}
