package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFileIsCurrent: the committed items_gen.go is what the
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
		t.Error("internal/session/items_gen.go is out of date with itemTable and the item types: run go generate ./internal/session")
	}
}

// copyPackage copies the session package's source into a temporary
// directory, with extra files added.
func copyPackage(t *testing.T, extra map[string]string) string {
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
	for name, src := range extra {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// An item kind declared outside the table (its own ItemKind method)
// stops the generator, and so TestGeneratedFileIsCurrent.
func TestItemMissingFromTheTable(t *testing.T) {
	dir := copyPackage(t, map[string]string{"shiny.go": "package session\n\ntype Shiny struct{ Note string }\n\nfunc (*Shiny) ItemKind() string { return \"shiny\" }\n"})
	if _, err := generate(dir); err == nil || !strings.Contains(err.Error(), "itemTable") {
		t.Fatalf("generate with an item missing from the table: %v", err)
	}
}

// A table row gets its constant, ItemKind, codec and dispatch; required
// and optional fields follow the tag.
func TestNewItem(t *testing.T) {
	dir := copyPackage(t, map[string]string{"shiny.go": "package session\n\ntype Shiny struct {\n\tNote string\n\tCount int `wire:\"n\"`\n\tWhy *string `wire:\",omitempty\"`\n}\n"})
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
