package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

type sampleArgs struct {
	Path  string   `json:"path" jsonschema:"file to act on"`
	Count *int     `json:"count,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Force bool     `json:"force,omitempty"`
	Items []struct {
		Name string  `json:"name"`
		Size float64 `json:"size,omitempty"`
	} `json:"items,omitempty"`
}

type strictArgs struct {
	Mode string `json:"mode"`
}

func (strictArgs) AdjustSchema(s *Schema) {
	s.Properties["mode"].Enum = []any{"a", "b"}
	s.Closed = true
}

// richArgs reports its own, richer argument errors.
type richArgs struct {
	N int `json:"n"`
}

func (r *richArgs) UnmarshalJSON(b []byte) error {
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if n, _ := m["n"].(float64); n > 10 {
		return &ArgError{Tool: "rich", Msg: "error: rich requires arguments.n to be at most 10"}
	}
	r.N = int(m["n"].(float64))
	return nil
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(bytes.TrimSuffix(want, []byte("\n")), got) {
		t.Errorf("%s differs from golden:\n got %s\nwant %s", name, got, want)
	}
}

func TestFuncSchemaGolden(t *testing.T) {
	noop := func(context.Context, *Env, sampleArgs) Result { return Result{} }
	tests := []struct {
		name string
		tool Tool
	}{
		{"sample.json", Func("sample", "d", noop)},
		{"strict.json", Func("strict", "d", func(context.Context, *Env, strictArgs) Result { return Result{} })},
		{"empty.json", Func("empty", "d", func(context.Context, *Env, struct{}) Result { return Result{} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, tt.tool.Schema)
			var s map[string]any
			if err := json.Unmarshal(tt.tool.Schema, &s); err != nil {
				t.Fatal(err)
			}
			if _, ok := s["$schema"]; ok {
				t.Error("schema carries $schema")
			}
			if bytes.Contains(tt.tool.Schema, []byte(`"null"`)) {
				t.Error("schema still has a null union")
			}
		})
	}
}

func TestFuncNonStructPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Func with a non-struct argument type did not panic")
		}
	}()
	Func("bad", "d", func(context.Context, *Env, string) Result { return Result{} })
}

func TestFuncArgs(t *testing.T) {
	var got sampleArgs
	sample := Func("sample", "d", func(_ context.Context, _ *Env, a sampleArgs) Result {
		got = a
		return TextResult("ran")
	})
	strict := Func("strict", "d", func(_ context.Context, _ *Env, a strictArgs) Result { return TextResult(a.Mode) })
	rich := Func("rich", "d", func(_ context.Context, _ *Env, a richArgs) Result { return TextResult("ran") })
	tests := []struct {
		name    string
		tool    Tool
		args    string
		wantErr string // "" = the tool ran
		check   func(t *testing.T)
	}{
		{"ok minimal", sample, `{"path":"a"}`, "", func(t *testing.T) {
			if got.Path != "a" || got.Count != nil || got.Tags != nil {
				t.Errorf("decoded %+v", got)
			}
		}},
		{"ok full, unknown key ignored", sample, `{"path":"a","count":3,"tags":["x"],"force":true,"items":[{"name":"n"}],"extra":1}`, "", func(t *testing.T) {
			if got.Count == nil || *got.Count != 3 || !got.Force || len(got.Items) != 1 || got.Items[0].Name != "n" {
				t.Errorf("decoded %+v", got)
			}
		}},
		{"optional null is fine", sample, `{"path":"a","count":null}`, "", nil},
		{"not JSON", sample, `{"path":`, "error: sample arguments are not valid JSON: unexpected end of JSON input", nil},
		{"not JSON garbage", sample, `path=a`, "error: sample arguments are not valid JSON: invalid character 'p' looking for beginning of value", nil},
		{"array", sample, `["a"]`, "error: sample requires object arguments", nil},
		{"string", sample, `"a"`, "error: sample requires object arguments", nil},
		{"null", sample, `null`, "error: sample requires object arguments", nil},
		{"empty means {}", sample, ``, "error: sample requires arguments.path", nil},
		{"missing required", sample, `{}`, "error: sample requires arguments.path", nil},
		{"required null", sample, `{"path":null}`, "error: sample requires arguments.path", nil},
		{"required wrong type", sample, `{"path":5}`, "error: sample requires arguments.path", nil},
		{"integer as string", sample, `{"path":"a","count":"3"}`, "error: sample requires arguments.count", nil},
		{"integer as fraction", sample, `{"path":"a","count":1.5}`, "error: sample requires arguments.count", nil},
		{"bool as string", sample, `{"path":"a","force":"yes"}`, "error: sample requires arguments.force", nil},
		{"array as object", sample, `{"path":"a","tags":{}}`, "error: sample requires arguments.tags", nil},
		{"nested wrong type", sample, `{"path":"a","items":[{"name":1}]}`, "error: sample requires arguments.items.name", nil},
		{"strict ok", strict, `{"mode":"a"}`, "", nil},
		{"rich error passes through", rich, `{"n":11}`, "error: rich requires arguments.n to be at most 10", nil},
		{"rich ok", rich, `{"n":1}`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.tool.Run(context.Background(), &Env{}, json.RawMessage(tt.args))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if res.IsError {
					t.Fatalf("result is an error: %s", res.Content.Text())
				}
				if tt.check != nil {
					tt.check(t)
				}
				return
			}
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("Run error = %v (%T), want *ArgError", err, err)
			}
			if ae.Msg != tt.wantErr || err.Error() != tt.wantErr {
				t.Fatalf("error = %q, want %q", ae.Msg, tt.wantErr)
			}
			if !res.IsError || res.Content.Text() != tt.wantErr {
				t.Errorf("result = %+v, want the error text as an error result", res)
			}
		})
	}
}

func TestResultHelpers(t *testing.T) {
	tests := []struct {
		res     Result
		text    string
		isError bool
	}{
		{TextResult("ok"), "ok", false},
		{Errorf("error reading %s: %d", "a", 3), "error reading a: 3", true},
		{MissingArg("edit", "path").Result(), "error: edit requires arguments.path", true},
	}
	for _, tt := range tests {
		if tt.res.Content.Text() != tt.text || tt.res.IsError != tt.isError || tt.res.Control != Respond {
			t.Errorf("got %+v, want text %q isError %v", tt.res, tt.text, tt.isError)
		}
	}
}
