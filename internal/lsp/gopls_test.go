package lsp

import (
	"path/filepath"

	"github.com/openseek/openseek/internal/sandbox"
	"strings"
	"testing"
	"time"
)

const (
	goMod     = "module example.com/lsp\n\ngo 1.22\n"
	goClean   = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	goBroken  = "package main\n\nfunc main() {\n\tvar n int = \"seven\"\n\tprintln(n)\n}\n"
	goHelper  = "package main\n\nfunc helper() int { return 1 }\n"
	goCallsIt = "package main\n\nfunc main() {\n\tprintln(helper())\n}\n"
)

func TestGoplsReportsAnIntroducedTypeErrorAndItsFix(t *testing.T) {
	requireProgram(t, "gopls")
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "go.mod"), goMod)
	main := filepath.Join(ws, "main.go")
	writeFile(t, main, goClean)
	m := newManager(t, ws, Options{Wait: 30 * time.Second})
	warm(t, m, main)

	start := time.Now()
	r := change(t, m, main, goBroken)
	t.Logf("diagnostics after the breaking edit: %v", time.Since(start))
	if !r.Checked || !hasIntroduced(r, main, 4, "cannot use \"seven\"") {
		t.Fatalf("report %+v, want the type error on line 4", r)
	}
	if r.ErrorDelta() < 1 {
		t.Errorf("error delta %d", r.ErrorDelta())
	}
	text := r.Text(func(p string) string { return filepath.Base(p) })
	if !strings.Contains(text, "main.go:4:") || !strings.Contains(text, "gopls") {
		t.Errorf("text %q", text)
	}

	start = time.Now()
	r = change(t, m, main, goClean)
	t.Logf("diagnostics after the fix: %v", time.Since(start))
	if !r.Checked || len(r.Introduced) != 0 || r.Resolved < 1 || r.ErrorsAfter != 0 {
		t.Fatalf("report after the fix %+v", r)
	}
	if text := r.Text(filepath.Base); !strings.Contains(text, "resolved") {
		t.Errorf("text %q", text)
	}
}

// A change in one file that breaks another file of the package is
// reported there.
func TestGoplsReportsBreakageInAnotherFile(t *testing.T) {
	requireProgram(t, "gopls")
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "go.mod"), goMod)
	helper := filepath.Join(ws, "helper.go")
	main := filepath.Join(ws, "main.go")
	writeFile(t, helper, goHelper)
	writeFile(t, main, goCallsIt)
	m := newManager(t, ws, Options{Wait: 30 * time.Second})
	warm(t, m, main)
	change(t, m, main, goCallsIt) // opens main.go: its diagnostics are known
	r := change(t, m, helper, "package main\n\nfunc helper2() int { return 1 }\n")
	if !r.Checked || !hasIntroduced(r, main, 4, "undefined: helper") {
		t.Fatalf("report %+v, want main.go:4 undefined: helper", r)
	}
}

// Servers run in the session's sandbox, as shell commands do, and still
// see the workspace.
func TestGoplsInTheSandbox(t *testing.T) {
	requireProgram(t, "gopls")
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "go.mod"), goMod)
	main := filepath.Join(ws, "main.go")
	writeFile(t, main, goClean)
	pol := sandbox.DefaultPolicy(ws)
	if problems := sandbox.Detect().Problems(pol); len(problems) > 0 {
		t.Skipf("this kernel offers no sandbox: %v", problems)
	}
	m := newManager(t, ws, Options{Wait: 30 * time.Second, Sandbox: &pol})
	warm(t, m, main)
	if r := change(t, m, main, goBroken); !r.Checked || !hasIntroduced(r, main, 4, "cannot use \"seven\"") {
		t.Fatalf("report %+v", r)
	}
}
