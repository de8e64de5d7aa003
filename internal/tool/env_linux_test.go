package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/beneath/beneathtest"
)

// Resolve racing a command that exchanges a directory with a symlink
// (renameat2 RENAME_EXCHANGE) resolves to one or the other; a link that
// stops being one between looking at it and reading it is looked at again,
// not reported as "invalid argument".
func TestResolveRacingASwap(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"d", "other"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("other", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	env := &Env{Workspace: ws}
	stop := beneathtest.Exchange(filepath.Join(ws, "d"), filepath.Join(ws, "link"))
	defer stop()
	for range 10000 {
		got, err := env.Resolve("d/x")
		if err != nil {
			if !strings.Contains(err.Error(), "too many levels") { // 40 exchanges in a row
				t.Fatalf("Resolve: %v", err)
			}
			continue
		}
		if got != filepath.Join(ws, "d/x") && got != filepath.Join(ws, "other/x") {
			t.Fatalf("Resolve = %s", got)
		}
	}
}
