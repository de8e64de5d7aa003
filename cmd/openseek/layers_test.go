package main

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is this repository's module path.
const module = "github.com/openseek/openseek"

// TestCommandImportsOnlyTheHost holds the layering of docs/architecture.md:
// cmd/openseek is flags → host → transport. Its non-test files, in both
// builds, import of this module only the host (internal/engine and its
// process entry), packages that stand on the host (depend on it: the
// fleet, review, replay, workflows, the terminal UI), the transports
// (internal/server/...), the wire types (protocol) and the renderer;
// behaviour that needs a package below the host goes into the host.
func TestCommandImportsOnlyTheHost(t *testing.T) {
	t.Parallel()
	for _, tags := range [][]string{nil, {"headless"}} {
		below := importsBelowHost(t, tags)
		if len(below) > 0 {
			t.Errorf("cmd/openseek (tags %v) imports packages below the host: %s\nmove what it uses into the host (internal/engine) or a package that stands on it", tags, strings.Join(below, ", "))
		}
	}
}

// importsBelowHost lists the imports of this module by cmd/openseek's
// non-test files (built with tags) that the layering does not permit.
func importsBelowHost(t *testing.T, tags []string) []string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not two levels up: %v", err)
	}
	ctx := build.Default
	ctx.BuildTags = tags
	imports := map[string][]string{} // package → its imports of this module, non-test
	var load func(path string) []string
	load = func(path string) []string {
		if imp, ok := imports[path]; ok {
			return imp
		}
		imports[path] = nil // a cycle cannot loop here
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(path, module)))
		p, err := ctx.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("read package %s: %v", path, err)
		}
		var own []string
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/") {
				own = append(own, imp)
			}
		}
		imports[path] = own
		return own
	}
	const host = module + "/internal/engine"
	var standsOnHost func(path string, seen map[string]bool) bool
	standsOnHost = func(path string, seen map[string]bool) bool {
		if seen[path] {
			return false
		}
		seen[path] = true
		for _, imp := range load(path) {
			if imp == host || standsOnHost(imp, seen) {
				return true
			}
		}
		return false
	}
	permitted := func(path string) bool {
		switch strings.TrimPrefix(path, module+"/") {
		case "internal/engine", "internal/engine/entry", "protocol", "internal/render":
			return true
		}
		return strings.HasPrefix(path, module+"/internal/server/") || standsOnHost(path, map[string]bool{})
	}
	var below []string
	for _, imp := range load(module + "/cmd/openseek") {
		if !permitted(imp) {
			below = append(below, strings.TrimPrefix(imp, module+"/"))
		}
	}
	slices.Sort(below)
	return below
}
