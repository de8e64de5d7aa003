package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Schema is the part of JSON Schema that tool arguments use. Func builds
// it from the argument struct; a SchemaAdjuster may then add what struct
// tags cannot say. It is rendered tight: no "$schema", no
// additionalProperties unless Closed, no "null" in the types of pointers
// and slices — what costs tokens and tells the model nothing.
type Schema struct {
	Type        string // "object", "string", "integer", …; "" allows any value
	Description string
	Enum        []any
	Properties  map[string]*Schema
	Order       []string // property names in declaration order
	Items       *Schema  // of an array
	Required    []string
	Closed      bool // additionalProperties: false
}

// SchemaAdjuster is implemented by an argument type whose schema needs
// more than struct tags can say: an enum, or additionalProperties:false.
// Func calls AdjustSchema on the zero value once per type.
type SchemaAdjuster interface {
	AdjustSchema(s *Schema)
}

// argSchema is a tool's argument schema, rendered once, plus what the
// argument decoder needs to check the top level.
type argSchema struct {
	raw      json.RawMessage
	required []string
	order    []string          // property names in declaration order
	types    map[string]string // property name → JSON type ("" = any)
}

// schemas caches argSchema by argument type: every engine (a session, a
// sub-agent) builds its tools, and the schema of a type never changes.
var schemas sync.Map // reflect.Type → argSchema

// schemaFor returns the tight schema of A.
func schemaFor[A any]() (argSchema, error) {
	rt := reflect.TypeFor[A]()
	if as, ok := schemas.Load(rt); ok {
		return as.(argSchema), nil
	}
	if rt.Kind() != reflect.Struct {
		return argSchema{}, fmt.Errorf("arguments must be a struct, got %s", rt)
	}
	s, err := schemaOf(rt, nil)
	if err != nil {
		return argSchema{}, err
	}
	var zero A
	if adj, ok := any(zero).(SchemaAdjuster); ok {
		adj.AdjustSchema(s)
	} else if adj, ok := any(&zero).(SchemaAdjuster); ok {
		adj.AdjustSchema(s)
	}
	raw, err := s.appendJSON(nil)
	if err != nil {
		return argSchema{}, err
	}
	as := argSchema{raw: raw, required: s.Required, order: s.Order, types: make(map[string]string, len(s.Properties))}
	for name, p := range s.Properties {
		as.types[name] = p.Type
	}
	schemas.Store(rt, as)
	return as, nil
}

// schemaOf describes a value of type t as encoding/json reads it. seen
// holds the struct types being described, to refuse recursive ones.
func schemaOf(t reflect.Type, seen []reflect.Type) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}, nil
	case reflect.Interface:
		return &Schema{}, nil
	case reflect.Slice, reflect.Array:
		items, err := schemaOf(t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: "array", Items: items}, nil
	case reflect.Struct:
		for _, s := range seen {
			if s == t {
				return nil, fmt.Errorf("recursive type %s", t)
			}
		}
		s := &Schema{Type: "object", Properties: map[string]*Schema{}}
		if err := s.addFields(t, append(seen, t)); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("unsupported argument type %s", t)
}

// addFields adds the fields of struct t as encoding/json names them;
// embedded structs without a name contribute their fields. A field
// without omitempty or omitzero is required; a `jsonschema:"…"` tag is
// its description.
func (s *Schema) addFields(t reflect.Type, seen []reflect.Type) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if err := s.addFields(et, seen); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p, err := schemaOf(f.Type, seen)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		p.Description = f.Tag.Get("jsonschema")
		if _, dup := s.Properties[name]; !dup {
			s.Order = append(s.Order, name)
		}
		s.Properties[name] = p
		if !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") {
			s.Required = append(s.Required, name)
		}
	}
	return nil
}

// appendJSON renders s, keys in a fixed order and properties in
// declaration order, strings escaped as encoding/json escapes them.
func (s *Schema) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	sep := func() {
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
	}
	str := func(v string) {
		q, _ := json.Marshal(v) // a string always encodes
		b = append(b, q...)
	}
	if s.Type != "" {
		b = append(b, `"type":`...)
		str(s.Type)
	}
	if len(s.Order) > 0 {
		sep()
		b = append(b, `"properties":{`...)
		for i, name := range s.Order {
			if i > 0 {
				b = append(b, ',')
			}
			str(name)
			b = append(b, ':')
			var err error
			if b, err = s.Properties[name].appendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	if s.Items != nil {
		sep()
		b = append(b, `"items":`...)
		var err error
		if b, err = s.Items.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if s.Description != "" {
		sep()
		b = append(b, `"description":`...)
		str(s.Description)
	}
	if len(s.Enum) > 0 {
		sep()
		e, err := json.Marshal(s.Enum)
		if err != nil {
			return nil, fmt.Errorf("enum: %w", err)
		}
		b = append(b, `"enum":`...)
		b = append(b, e...)
	}
	if len(s.Required) > 0 {
		sep()
		b = append(b, `"required":[`...)
		for i, name := range s.Required {
			if i > 0 {
				b = append(b, ',')
			}
			str(name)
		}
		b = append(b, ']')
	}
	if s.Closed {
		sep()
		b = append(b, `"additionalProperties":false`...)
	}
	return append(b, '}'), nil
}
