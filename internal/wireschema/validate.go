package wireschema

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile compiles the schema file name (a key of Files) for validation,
// with github.com/santhosh-tekuri/jsonschema as the validator: an
// implementation of its own, so a check of the engine's output against
// the generated schema is a check by an independent oracle.
func Compile(name string) (*jsonschema.Schema, error) {
	gen, ok := Files()[name]
	if !ok {
		return nil, fmt.Errorf("no schema %s", name)
	}
	data, err := gen()
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		return nil, err
	}
	return c.Compile(name)
}

// Validate checks one JSON document (an event line, a run result)
// against s.
func Validate(s *jsonschema.Schema, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return s.Validate(v)
}
