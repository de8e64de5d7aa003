package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFileIsCurrent: the committed events_gen.go is what the
// table and the struct declarations generate.
func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := generate("../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("../..", Output))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("protocol/events_gen.go is out of date with eventTable and the event types: run go generate ./protocol")
	}
}

// copyPackage copies the protocol package's source into a temporary
// directory, where a test may add to it.
func copyPackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	names, err := filepath.Glob("../../*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(n)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// An event type declared in an event_*.go file but left out of the
// table, or one that writes its own EventName, stops the generator (and
// so TestGeneratedFileIsCurrent) with a message that says what to do.
func TestEventMissingFromTheTable(t *testing.T) {
	for name, src := range map[string]string{
		"undeclared": "package protocol\n\ntype ShinyNew struct{ Note string }\n",
		"hand-named": "package protocol\n\ntype shinyHelper struct{}\n\nfunc (shinyHelper) EventName() string { return \"shiny\" }\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := copyPackage(t)
			file := "event_shiny.go"
			if name == "hand-named" {
				file = "shiny.go"
			}
			if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := generate(dir)
			if err == nil || !strings.Contains(err.Error(), "eventTable") {
				t.Fatalf("generate with an event missing from the table: %v", err)
			}
		})
	}
}

// A field's tag overrides its key and sets its options; a type the
// generator has no wire form for is an error, not silently skipped.
func TestTagsAndUnknownTypes(t *testing.T) {
	dir := copyPackage(t)
	src := "package protocol\n\ntype ShinyNew struct {\n\tWhy string `wire:\"reason,omitempty\"`\n\tN   int\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "event_shiny.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	table, err := os.ReadFile(filepath.Join(dir, "events.go"))
	if err != nil {
		t.Fatal(err)
	}
	table = bytes.Replace(table, []byte("\t\t{\"agent_step\", AgentStep{}},\n"), []byte("\t\t{\"agent_step\", AgentStep{}},\n\t\t{\"shiny_new\", ShinyNew{}},\n"), 1)
	if err := os.WriteFile(filepath.Join(dir, "events.go"), table, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`func (ShinyNew) EventName() string`,
		"if e.Why != \"\" {\n\t\tb = appendStrField(b, \"reason\", e.Why)\n\t}\n\tb = appendIntField(b, \"n\", e.N)",
		`e := ShinyNew{Why: deref(f.optStr("reason")), N: f.int("n")}`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("generated source lacks %q", want)
		}
	}
	bad := "package protocol\n\ntype ShinyNew struct{ When map[string]int }\n"
	if err := os.WriteFile(filepath.Join(dir, "event_shiny.go"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := generate(dir); err == nil || !strings.Contains(err.Error(), "no wire form") {
		t.Errorf("a field of unknown type: %v", err)
	}
}
