package tool

import (
	"context"
	"strings"
	"testing"
)

type embeddedBase struct {
	Dir string `json:"dir,omitempty" jsonschema:"where"`
}

type edgeArgs struct {
	embeddedBase
	Name    string          `json:"name" jsonschema:"a <b> & c"`
	Skip    string          `json:"-"`
	hidden  string          //nolint:unused // unexported: not in the schema
	Dash    string          `json:"-,"`
	Plain   int             // no tag: its Go name, required
	Any     any             `json:"any,omitzero"`
	Matrix  [][]float32     `json:"matrix,omitempty"`
	Pointer **bool          `json:"pointer,omitempty"`
	Nested  *embeddedBase   `json:"nested,omitempty"`
	Fixed   [2]string       `json:"fixed,omitempty"`
	Inline  struct{ X int } `json:"inline,omitempty"`
}

type recursiveArgs struct {
	Next *recursiveArgs `json:"next,omitempty"`
}

type mapArgs struct {
	M map[string]string `json:"m"`
}

// TestSchemaEdges covers what the built-in tools do not use yet: embedded
// structs, skipped and untagged fields, nested arrays, double pointers,
// any, and the escaping encoding/json does.
func TestSchemaEdges(t *testing.T) {
	as, err := schemaFor[edgeArgs]()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"dir":{"type":"string","description":"where"},` +
		`"name":{"type":"string","description":"a \u003cb\u003e \u0026 c"},"-":{"type":"string"},"Plain":{"type":"integer"},` +
		`"any":{},"matrix":{"type":"array","items":{"type":"array","items":{"type":"number"}}},"pointer":{"type":"boolean"},` +
		`"nested":{"type":"object","properties":{"dir":{"type":"string","description":"where"}}},` +
		`"fixed":{"type":"array","items":{"type":"string"}},` +
		`"inline":{"type":"object","properties":{"X":{"type":"integer"}},"required":["X"]}},` +
		`"required":["name","-","Plain"]}`
	if string(as.raw) != want {
		t.Errorf("schema:\n got %s\nwant %s", as.raw, want)
	}
	if again, _ := schemaFor[edgeArgs](); &again.raw[0] != &as.raw[0] {
		t.Error("the schema of a type is built again instead of cached")
	}
	for name, fn := range map[string]func() error{
		"recursive": func() error { _, err := schemaFor[recursiveArgs](); return err },
		"map":       func() error { _, err := schemaFor[mapArgs](); return err },
	} {
		if err := fn(); err == nil || !strings.Contains(err.Error(), "recursiveArgs") && !strings.Contains(err.Error(), "map[string]string") {
			t.Errorf("%s: err = %v, want one naming the type", name, err)
		}
	}
}

func BenchmarkFuncSchema(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		schemas.Clear()
		Func("sample", "d", func(context.Context, *Env, sampleArgs) Result { return Result{} })
	}
}
