package mcp

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestInputSchema(t *testing.T) {
	tests := []struct {
		name     string
		in       any
		want     string
		required []string
		wantErr  bool
	}{
		{name: "nil", in: nil, want: `{"properties":{},"type":"object"}`},
		{name: "empty", in: map[string]any{}, want: `{"properties":{},"type":"object"}`},
		{name: "no properties", in: map[string]any{"type": "object"}, want: `{"properties":{},"type":"object"}`},
		{
			name:     "drops $schema, keeps the rest, sorted",
			in:       map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": map[string]any{"b": map[string]any{"type": "number"}, "a": map[string]any{"type": "string"}}, "required": []any{"a"}, "additionalProperties": false},
			want:     `{"additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"],"type":"object"}`,
			required: []string{"a"},
		},
		{name: "raw JSON", in: json.RawMessage(`{"type":"object","properties":{"x":{}}}`), want: `{"properties":{"x":{}},"type":"object"}`},
		{name: "not an object schema", in: map[string]any{"type": "string"}, wantErr: true},
		{name: "not a JSON object", in: []int{1}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, req, err := inputSchema(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if tc.wantErr {
				return
			}
			if string(raw) != tc.want || !slices.Equal(req, tc.required) {
				t.Errorf("schema = %s %v, want %s %v", raw, req, tc.want, tc.required)
			}
		})
	}
}

func TestCallArgs(t *testing.T) {
	tests := []struct {
		raw, want, wantErr string
		required           []string
	}{
		{raw: ``, want: `{}`, required: []string{}},
		{raw: ``, wantErr: "error: t requires arguments.a"},
		{raw: ` {"a":1} `, want: `{"a":1}`},
		{raw: `{"b":1}`, wantErr: "error: t requires arguments.a"},
		{raw: `{"a":null}`, wantErr: "error: t requires arguments.a"},
		{raw: `null`, wantErr: "error: t requires object arguments"},
		{raw: `[1]`, wantErr: "error: t requires object arguments"},
		{raw: `{"a":`, wantErr: "error: t arguments are not valid JSON"},
	}
	for _, tc := range tests {
		req := []string{"a"}
		if tc.required != nil {
			req = tc.required
		}
		got, aerr := callArgs("t", json.RawMessage(tc.raw), req)
		if tc.wantErr != "" {
			if aerr == nil || aerr.Msg != tc.wantErr {
				t.Errorf("callArgs(%s) error = %v, want %s", tc.raw, aerr, tc.wantErr)
			}
			continue
		}
		if aerr != nil || string(got) != tc.want {
			t.Errorf("callArgs(%s) = %s, %v", tc.raw, got, aerr)
		}
	}
}
