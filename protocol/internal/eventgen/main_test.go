package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/wiregen"
)

// TestGeneratedFileIsCurrent: the committed events_gen.go is what the
// table and the struct declarations generate.
func TestGeneratedFileIsCurrent(t *testing.T) {
	if err := wiregen.Stale("../..", Output, "go generate ./protocol", generate); err != nil {
		t.Error(err)
	}
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
			file := "event_shiny.go"
			if name == "hand-named" {
				file = "shiny.go"
			}
			dir := t.TempDir()
			if err := wiregen.CopySource(dir, "../..", map[string]string{file: src}); err != nil {
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
	src := "package protocol\n\ntype ShinyNew struct {\n\tWhy string `wire:\"reason,omitempty\"`\n\tN   int\n}\n"
	dir := t.TempDir()
	if err := wiregen.CopySource(dir, "../..", map[string]string{"event_shiny.go": src}); err != nil {
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
