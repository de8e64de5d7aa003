package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/wiregen"
)

// TestGeneratedFileIsCurrent: the committed items_gen.go is what the
// table and the struct declarations generate.
func TestGeneratedFileIsCurrent(t *testing.T) {
	if err := wiregen.Stale("../..", Output, "go generate ./internal/session", generate); err != nil {
		t.Error(err)
	}
}

// An item kind declared outside the table (its own ItemKind method)
// stops the generator, and so TestGeneratedFileIsCurrent.
func TestItemMissingFromTheTable(t *testing.T) {
	dir := t.TempDir()
	if err := wiregen.CopySource(dir, "../..", map[string]string{"shiny.go": "package session\n\ntype Shiny struct{ Note string }\n\nfunc (*Shiny) ItemKind() string { return \"shiny\" }\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := generate(dir); err == nil || !strings.Contains(err.Error(), "itemTable") {
		t.Fatalf("generate with an item missing from the table: %v", err)
	}
}

// A table row gets its constant, ItemKind, codec and dispatch; required
// and optional fields follow the tag.
func TestNewItem(t *testing.T) {
	dir := t.TempDir()
	if err := wiregen.CopySource(dir, "../..", map[string]string{"shiny.go": "package session\n\ntype Shiny struct {\n\tNote string\n\tCount int `wire:\"n\"`\n\tWhy *string `wire:\",omitempty\"`\n}\n"}); err != nil {
		t.Fatal(err)
	}
	table, err := os.ReadFile(filepath.Join(dir, "items.go"))
	if err != nil {
		t.Fatal(err)
	}
	table = bytes.Replace(table, []byte("\t\t{\"summary\", &Summary{}},\n"), []byte("\t\t{\"summary\", &Summary{}},\n\t\t{\"shiny\", &Shiny{}},\n"), 1)
	if err := os.WriteFile(filepath.Join(dir, "items.go"), table, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`= "shiny"`,
		"func (*Shiny) ItemKind() string { return KindShiny }",
		"case *Shiny:\n\t\treturn appendShiny(b, it)",
		"case KindShiny:\n\t\treturn decodeShiny(d)",
		"b = append(b, \"{\\\"note\\\":\"...)",
		"b = append(b, \",\\\"n\\\":\"...)",
		"if it.Why != nil {",
		"return nil, missing(\"n\")",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("generated source lacks %q", want)
		}
	}
	if bytes.Contains(out, []byte(`missing("why")`)) {
		t.Error("an omitempty field is required")
	}
}
