package tool

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaAdjuster is implemented by an argument type whose schema needs
// more than struct tags can say: an enum, or additionalProperties:false.
// Func calls AdjustSchema on the zero value once, after tightening.
type SchemaAdjuster interface {
	AdjustSchema(s *jsonschema.Schema)
}

// argSchema is a tool's argument schema, rendered once, plus what the
// argument decoder needs to check the top level.
type argSchema struct {
	raw      json.RawMessage
	required []string
	order    []string          // property names in declaration order
	types    map[string]string // property name → JSON type ("" = any)
}

// schemaFor generates the tight schema of A.
func schemaFor[A any]() (argSchema, error) {
	s, err := jsonschema.For[A](nil)
	if err != nil {
		return argSchema{}, err
	}
	if s.Type != "object" {
		return argSchema{}, fmt.Errorf("arguments must be a struct, got schema type %q", s.Type)
	}
	tighten(s)
	var zero A
	if adj, ok := any(zero).(SchemaAdjuster); ok {
		adj.AdjustSchema(s)
	} else if adj, ok := any(&zero).(SchemaAdjuster); ok {
		adj.AdjustSchema(s)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return argSchema{}, err
	}
	as := argSchema{
		raw:      raw,
		required: s.Required,
		order:    s.PropertyOrder,
		types:    make(map[string]string, len(s.Properties)),
	}
	for name, p := range s.Properties {
		as.types[name] = p.Type
	}
	return as, nil
}

// tighten drops what costs tokens and tells the model nothing:
// "$schema", the additionalProperties:false every struct gets, and the
// "null" in the ["null", T] unions pointers and slices produce.
func tighten(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.Schema = ""
	s.AdditionalProperties = nil
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	if len(s.Required) == 0 {
		s.Required = nil
	}
	for _, p := range s.Properties {
		tighten(p)
	}
	tighten(s.Items)
}
