// Package wireschema generates the JSON Schemas of OpenSeek's published
// contracts for scripts and CI: the event stream (the JSONL protocol
// events of `serve` and `run --format jsonl`, docs/schema/events.v1.json)
// and the result `run --format json` prints (run-result.v1.json).
//
// The schemas come from the code, not from a hand-written copy: each
// event type is encoded by protocol.Emit twice, once as its zero value
// (the keys it always writes are required; a key written as null may be
// null) and once with every field filled by reflection (every key it can
// write is a property, typed by the JSON it writes; a protocol.Content
// field is a string or an array of parts). The run result is encoded the
// same way with encoding/json. `go generate ./internal/wireschema` writes
// the files; a test fails when they no longer match the code.
package wireschema

//go:generate go run ./gen ../../docs/schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/openseek/openseek/protocol"
)

// Version is the contract's version: the v1 in the file names. Growth is
// additive (a new event or key); a change that would break a v1 reader
// makes a v2 file.
const Version = 1

// Files maps each schema file name to its generator.
func Files() map[string]func() ([]byte, error) {
	return map[string]func() ([]byte, error){
		"events.v1.json":     Events,
		"run-result.v1.json": RunResult,
	}
}

// schema is a JSON Schema object; its keys are written sorted.
type schema = map[string]any

// Events is the schema of one line of the event stream: exactly one of
// the events, told apart by "event".
func Events() ([]byte, error) {
	evs := protocol.EventTypes()
	sort.Slice(evs, func(i, j int) bool { return evs[i].EventName() < evs[j].EventName() })
	defs := schema{"content": contentSchema()}
	var oneOf []any
	for _, zero := range evs {
		filled := fill(reflect.TypeOf(zero)).Interface().(protocol.Event)
		s, err := objectSchema(protocol.Emit(zero), protocol.Emit(filled), reflect.TypeOf(zero))
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", zero.EventName(), err)
		}
		s["properties"].(schema)["event"] = schema{"const": zero.EventName()}
		s["title"] = zero.EventName()
		defs[zero.EventName()] = s
		oneOf = append(oneOf, schema{"$ref": "#/$defs/" + zero.EventName()})
	}
	return marshal(schema{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://github.com/openseek/openseek/docs/schema/events.v1.json",
		"title":       "OpenSeek event stream, version 1",
		"description": "One line of the JSONL event stream of `openseek serve` and `openseek run --format jsonl`: one JSON object naming its event. Generated from the Go types by internal/wireschema; do not edit.",
		"oneOf":       oneOf,
		"$defs":       defs,
	})
}

// RunResult is the schema of what `run --format json` prints.
func RunResult() ([]byte, error) {
	t := reflect.TypeOf(protocol.RunResult{})
	zero, err := json.Marshal(protocol.RunResult{})
	if err != nil {
		return nil, err
	}
	full, err := json.Marshal(fill(t).Interface())
	if err != nil {
		return nil, err
	}
	s, err := objectSchema(zero, full, t)
	if err != nil {
		return nil, err
	}
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = "https://github.com/openseek/openseek/docs/schema/run-result.v1.json"
	s["title"] = "OpenSeek run result, version 1"
	s["description"] = "What `openseek run --format json` prints when the run ends: one JSON object. Generated from the Go types by internal/wireschema; do not edit."
	s["properties"].(schema)["version"] = schema{"const": Version}
	return marshal(s)
}

func marshal(s schema) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// contentSchema is protocol.Content's wire form: a string, or an array of
// text and image parts.
func contentSchema() schema {
	return schema{"oneOf": []any{
		schema{"type": "string"},
		schema{"type": "array", "items": schema{"oneOf": []any{
			schema{"type": "object", "required": []string{"type", "text"}, "properties": schema{
				"type": schema{"const": "text"}, "text": schema{"type": "string"}}},
			schema{"type": "object", "required": []string{"type", "media_type", "data"}, "properties": schema{
				"type": schema{"const": "image"}, "media_type": schema{"type": "string"}, "data": schema{"type": "string", "contentEncoding": "base64"}}},
		}}},
	}}
}

// objectSchema types the object encoded as zero (the zero value: its keys
// are required, its nulls nullable) and full (every field filled: its
// keys are the properties). t is the Go type, for its Content fields.
func objectSchema(zero, full []byte, t reflect.Type) (schema, error) {
	var z, f map[string]json.RawMessage
	if err := json.Unmarshal(zero, &z); err != nil {
		return nil, fmt.Errorf("zero value: %w", err)
	}
	if err := json.Unmarshal(full, &f); err != nil {
		return nil, fmt.Errorf("filled value: %w", err)
	}
	props, required, err := properties(z, f, t)
	if err != nil {
		return nil, err
	}
	for key := range z {
		if _, ok := f[key]; !ok {
			return nil, fmt.Errorf("key %s is written for the zero value but not when filled", key)
		}
	}
	return schema{"type": "object", "required": required, "properties": props}, nil
}

// properties types each key of the filled object f: required when the
// zero object z writes it too, nullable when z writes null there. t is
// the Go type, for its Content fields (nil for a nested object).
func properties(z, f map[string]json.RawMessage, t reflect.Type) (schema, []string, error) {
	props := schema{}
	required := []string{}
	for key, v := range f {
		var s schema
		if ft, ok := fieldType(t, key); ok && ft == reflect.TypeOf(protocol.Content{}) {
			s = schema{"$ref": "#/$defs/content"}
		} else {
			var err error
			if s, err = valueSchema(z[key], v); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", key, err)
			}
		}
		if zv, ok := z[key]; ok {
			required = append(required, key)
			if string(zv) == "null" {
				s = nullable(s)
			}
		}
		props[key] = s
	}
	sort.Strings(required)
	return props, required, nil
}

// nullable lets s be null too.
func nullable(s schema) schema {
	if ty, ok := s["type"].(string); ok {
		c := schema{}
		for k, v := range s {
			c[k] = v
		}
		c["type"] = []string{ty, "null"}
		return c
	}
	return schema{"oneOf": []any{s, schema{"type": "null"}}}
}

// valueSchema types a JSON value as written when filled (zero is the same
// key's value for the zero value, nil when absent).
func valueSchema(zero, v json.RawMessage) (schema, error) {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0:
		return nil, fmt.Errorf("empty value")
	case v[0] == '"':
		return schema{"type": "string"}, nil
	case v[0] == 't' || v[0] == 'f':
		return schema{"type": "boolean"}, nil
	case v[0] == 'n':
		return schema{"type": "null"}, nil
	case v[0] == '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(v, &elems); err != nil {
			return nil, err
		}
		if len(elems) == 0 {
			return schema{"type": "array"}, nil
		}
		item, err := valueSchema(nil, elems[0])
		if err != nil {
			return nil, err
		}
		return schema{"type": "array", "items": item}, nil
	case v[0] == '{':
		var z, f map[string]json.RawMessage
		_ = json.Unmarshal(zero, &z)
		if err := json.Unmarshal(v, &f); err != nil {
			return nil, err
		}
		props, required, err := properties(z, f, nil)
		if err != nil {
			return nil, err
		}
		return schema{"type": "object", "required": required, "properties": props}, nil
	case bytes.ContainsAny(v, ".eE"):
		return schema{"type": "number"}, nil
	default:
		return schema{"type": "integer"}, nil
	}
}

// fieldType finds the field of struct t written under key (snake_case
// of its name, or its json tag).
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	if t == nil || t.Kind() != reflect.Struct {
		return nil, false
	}
	want := strings.ReplaceAll(key, "_", "")
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == key || strings.EqualFold(f.Name, want) {
			return f.Type, true
		}
	}
	return nil, false
}

// fill makes a value of t with every field set: strings "x", numbers 1
// (1.5 when fractional), true, one element in each slice and map, and
// Content one text part.
func fill(t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	if t == reflect.TypeOf(protocol.Content{}) {
		v.Set(reflect.ValueOf(protocol.Text("x")))
		return v
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		v.Set(fill(t.Elem()).Addr())
	case reflect.Slice:
		v.Set(reflect.Append(reflect.MakeSlice(t, 0, 1), fill(t.Elem())))
	case reflect.Map:
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(fill(t.Key()), fill(t.Elem()))
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(fill(t.Field(i).Type))
			}
		}
	}
	return v
}
