package editprog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestApplyPatch(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gone.txt"), []byte("x\n"), 0o644)
	sum, err := ApplyPatch(dir, "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n*** Add File: new.txt\n+hello\n*** Delete File: gone.txt\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"M a.txt", "A new.txt", "D gone.txt"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\n2\n" {
		t.Errorf("a.txt is %q", b)
	}

	// A patch that fails in its last hunk changes nothing; nor does one
	// that reaches outside the directory.
	for _, bad := range []string{
		"*** Begin Patch\n*** Add File: b.txt\n+b\n*** Update File: a.txt\n@@\n-nine\n+9\n*** End Patch\n",
		"*** Begin Patch\n*** Add File: c.txt\n+c\n*** Add File: ../escape.txt\n+e\n*** End Patch\n",
	} {
		if _, err := ApplyPatch(dir, bad); err == nil || !strings.HasSuffix(err.Error(), "; no file was changed") {
			t.Errorf("bad patch %q: %v", bad, err)
		}
	}
	for _, name := range []string{"b.txt", "c.txt", filepath.Join("..", "escape.txt")} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("a failed patch wrote %s", name)
		}
	}
}
