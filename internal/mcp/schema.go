package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/openseek/openseek/internal/tool"
)

// inputSchema turns a server's input schema into the tool's schema: the
// server's own, minus "$schema" (tokens that tell the model nothing), made
// an object schema with a "properties" member when it is trivial (missing,
// {} or properties-less), which is what providers require. Keys come out
// sorted, so the bytes are stable between turns. required lists the
// top-level required properties.
func inputSchema(in any) (raw json.RawMessage, required []string, err error) {
	var m map[string]any
	switch v := in.(type) {
	case nil:
	case map[string]any:
		m = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, nil, fmt.Errorf("input schema: %w", err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, nil, fmt.Errorf("input schema is not a JSON object")
		}
	}
	out := make(map[string]any, len(m)+2)
	for k, v := range m {
		if k != "$schema" {
			out[k] = v
		}
	}
	if t, ok := out["type"]; ok && t != "object" {
		return nil, nil, fmt.Errorf("input schema has type %v, want object", t)
	}
	out["type"] = "object"
	if p, ok := out["properties"].(map[string]any); !ok || p == nil {
		out["properties"] = map[string]any{}
	}
	if rs, ok := out["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required = append(required, s)
			}
		}
	}
	raw, err = json.Marshal(out)
	if err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	return raw, required, nil
}

// callArgs checks the model's arguments before they go to the server: a
// JSON object ("" counts as {}) holding every required field. Deeper
// checks are the server's job; its error text reaches the model.
func callArgs(name string, raw json.RawMessage, required []string) (json.RawMessage, *tool.ArgError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		if !json.Valid(raw) {
			return nil, &tool.ArgError{Tool: name, Msg: fmt.Sprintf("error: %s arguments are not valid JSON", name)}
		}
		return nil, &tool.ArgError{Tool: name, Msg: fmt.Sprintf("error: %s requires object arguments", name)}
	}
	for _, f := range required {
		if v, ok := fields[f]; !ok || string(bytes.TrimSpace(v)) == "null" {
			return nil, tool.MissingArg(name, f)
		}
	}
	return raw, nil
}
