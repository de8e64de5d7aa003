package lsp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPyrightReportsAnIntroducedTypeErrorAndItsFix(t *testing.T) {
	requireProgram(t, "pyright-langserver")
	ws := t.TempDir()
	mod := filepath.Join(ws, "calc.py")
	clean := "def double(x: int) -> int:\n    return x * 2\n\n\nprint(double(2))\n"
	broken := "def double(x: int) -> int:\n    return x * 2\n\n\nprint(double(\"two\"))\n"
	writeFile(t, mod, clean)
	m := newManager(t, ws, Options{Wait: 30 * time.Second})
	warm(t, m, mod)

	r := change(t, m, mod, broken)
	if !r.Checked || !hasIntroduced(r, mod, 5, "\"Literal['two']\"") {
		t.Fatalf("report %+v, want the argument type error on line 5", r)
	}
	if text := r.Text(filepath.Base); !strings.Contains(text, "calc.py:5:") || !strings.Contains(text, "pyright") {
		t.Errorf("text %q", text)
	}
	r = change(t, m, mod, clean)
	if !r.Checked || len(r.Introduced) != 0 || r.Resolved < 1 {
		t.Fatalf("report after the fix %+v", r)
	}
}
