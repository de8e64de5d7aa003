package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/syntax"

	"github.com/openseek/openseek/internal/trust"
)

// Workflows are found in the project (once trusted), the user's folder
// and the binary, the first place naming one winning; a FILE.star is
// read as it is.
func TestListAndFind(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	proj, user := filepath.Join(ws, ".openseek", "workflows"), filepath.Join(home, ".openseek", "workflows")
	os.MkdirAll(proj, 0o755)
	os.MkdirAll(user, 0o755)
	os.WriteFile(filepath.Join(proj, "check.star"), []byte("# The project's own check.\nprint(1)\n"), 0o644)
	os.WriteFile(filepath.Join(user, "mine.star"), []byte("#\n# Mine.\nprint(2)\n"), 0o644)
	os.WriteFile(filepath.Join(user, "notes.txt"), []byte("not a workflow"), 0o644)
	p := Places{Workspace: ws, Home: home}

	all, err := List(p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range all {
		got = append(got, w.Name+":"+w.Origin)
	}
	if strings.Join(got, " ") != "check:project fix-tests:bundled mine:user review:bundled" {
		t.Errorf("listed %v", got)
	}
	if all[2].Doc != "Mine." || !all[0].Untrusted {
		t.Errorf("doc %q, untrusted %v", all[2].Doc, all[0].Untrusted)
	}
	if _, err := Find(p, "check"); err == nil || !strings.Contains(err.Error(), "openseek trust "+filepath.Join(proj, "check.star")) {
		t.Errorf("an untrusted project workflow: %v", err)
	}
	if err := trust.Open(home).Trust(filepath.Join(proj, "check.star")); err != nil {
		t.Fatal(err)
	}
	if w, err := Find(p, "check"); err != nil || w.Origin != "project" {
		t.Errorf("a trusted project workflow: %+v %v", w, err)
	}
	os.WriteFile(filepath.Join(proj, "check.star"), []byte("print('changed')\n"), 0o644)
	if _, err := Find(p, "check"); err == nil {
		t.Error("a project workflow changed since it was trusted runs")
	}
	if w, err := Find(Places{Workspace: ws, Home: home, TrustWorkspace: true}, "check"); err != nil || w.Code != "print('changed')\n" {
		t.Errorf("--trust-workspace: %+v %v", w, err)
	}
	if _, err := Find(p, "nope"); err == nil || !strings.Contains(err.Error(), "known: check, fix-tests, mine, review") {
		t.Errorf("an unknown name: %v", err)
	}
	file := filepath.Join(t.TempDir(), "x.star")
	os.WriteFile(file, []byte("print(3)\n"), 0o644)
	if w, err := Find(p, file); err != nil || w.Name != "x" || w.Origin != "file" {
		t.Errorf("a file: %+v %v", w, err)
	}
}

// Every bundled workflow parses and says what it does.
func TestBundledWorkflowsHaveDocs(t *testing.T) {
	ws, err := Places{}.dir("bundled")
	if err != nil || len(ws) != 3 {
		t.Fatalf("%d bundled workflows, %v", len(ws), err)
	}
	for _, w := range ws {
		if w.Doc == "" {
			t.Errorf("%s has no leading comment", w.Name)
		}
		opts := &syntax.FileOptions{While: true, TopLevelControl: true, GlobalReassign: true}
		if _, err := opts.Parse(w.Name, w.Code, 0); err != nil {
			t.Errorf("%s: %v", w.Name, err)
		}
	}
}
