package engine

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/openseek/openseek/"

// imports lists the imports of the non-test Go files under dir (relative
// to this package), skipping the directories skip says to.
func imports(t *testing.T, dir string, skip func(path string) bool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || skip(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out[path] = append(out[path], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSessionsAreOpenedByTheHost: no code outside package engine imports
// the session runtime, so every session is entered through Host.Open
// (with the host's dependencies) and none is built past it.
func TestSessionsAreOpenedByTheHost(t *testing.T) {
	engineDir := filepath.Clean(".")
	files := imports(t, filepath.Join("..", ".."), func(path string) bool {
		abs, _ := filepath.Abs(path)
		here, _ := filepath.Abs(engineDir)
		return abs == here
	})
	for path, imps := range files {
		for _, p := range imps {
			if p == module+"internal/engine/runtime" {
				t.Errorf("%s imports the session runtime; open sessions through engine.Host.Open", path)
			}
		}
	}
}

// TestHubDependsOnProtocolAlone: the event hub needs nothing of the
// engine's, so any transport or client can use it.
func TestHubDependsOnProtocolAlone(t *testing.T) {
	for path, imps := range imports(t, "hub", func(string) bool { return false }) {
		for _, p := range imps {
			if strings.HasPrefix(p, module) && p != module+"protocol" {
				t.Errorf("%s imports %s; the hub depends on protocol alone", path, p)
			}
		}
	}
}
