package wireschema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/openseek/openseek/protocol"
)

const schemaDir = "../../docs/schema"

// The checked-in files are what the code generates: run `go generate
// ./internal/wireschema` after changing an event or the run result.
func TestSchemaFilesMatchTheCode(t *testing.T) {
	for name, gen := range Files() {
		want, err := gen()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(schemaDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/schema/%s does not match the code: run `go generate ./internal/wireschema`", name)
		}
	}
}

// Every type of package protocol with an EventName method is in
// protocol.EventTypes (the event table), so none is left out of the schema.
func TestEveryEventIsInTheSchema(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, "../../protocol", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, f := range pkgs["protocol"].Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "EventName" {
				continue
			}
			if id, ok := fd.Recv.List[0].Type.(*ast.Ident); ok {
				declared = append(declared, id.Name)
			}
		}
	}
	var listed []string
	for _, e := range protocol.EventTypes() {
		listed = append(listed, reflect.TypeOf(e).Name())
	}
	sort.Strings(declared)
	sort.Strings(listed)
	if !reflect.DeepEqual(declared, listed) {
		t.Errorf("events declared in protocol:\n%v\nlisted in protocol.EventTypes:\n%v", declared, listed)
	}
}

// compile loads a schema (the same bytes as docs/schema, as
// TestSchemaFilesMatchTheCode holds them).
func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	s, err := Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Every event, empty and filled, and every event line of the reference's
// protocol data validates; lines that break the contract do not.
func TestEventsValidate(t *testing.T) {
	s := compile(t, "events.v1.json")
	for _, zero := range protocol.EventTypes() {
		filled := fill(reflect.TypeOf(zero)).Interface().(protocol.Event)
		for _, e := range []protocol.Event{zero, filled} {
			if err := Validate(s, protocol.Emit(e)); err != nil {
				t.Errorf("%s does not validate: %v", protocol.Emit(e), err)
			}
		}
	}
	f, err := os.Open("../../protocol/testdata/reference-events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		if _, ok := protocol.ParseEvent(line); !ok {
			continue // the file's malformed lines test the parser
		}
		n++
		if err := Validate(s, line); err != nil {
			t.Errorf("reference line does not validate: %s\n%v", line, err)
		}
	}
	if n == 0 {
		t.Fatal("no reference event was checked")
	}
	for _, bad := range []string{
		`{"event":"agent_step"}`,
		`{"event":"agent_step","step":"1"}`,
		`{"event":"turn_summary","session":"s","outcome":"finished","duration_ms":1,"steps":1,"usage":{},"cost_usd":null}`,
		`{"event":"no_such_event"}`,
		`{"event":"steer_applied","kind":"prompt","content":42}`,
	} {
		if Validate(s, []byte(bad)) == nil {
			t.Errorf("%s validates", bad)
		}
	}
}

func TestRunResultValidates(t *testing.T) {
	s := compile(t, "run-result.v1.json")
	id, answer := "s1", "done"
	for _, r := range []protocol.RunResult{
		{Version: 1, Status: "finished", Warnings: []string{}},
		{Version: 1, Session: &id, Status: "finished", Answer: &answer, Steps: 2, Warnings: []string{"w"}},
	} {
		b, _ := json.Marshal(r)
		if err := Validate(s, b); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
	for _, bad := range []string{`{"version":2}`, `{"version":1,"status":"finished"}`} {
		if Validate(s, []byte(bad)) == nil {
			t.Errorf("%s validates", bad)
		}
	}
}
