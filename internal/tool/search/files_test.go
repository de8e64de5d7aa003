package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFilesHonoursIgnores(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a.go", "sub/b.go", "build/out.bin", "sub/skip.log", ".hidden/x", "keep.log"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644)
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n*.log\n!keep.log\n"), 0o644)
	got, more := Files(context.Background(), root, 100)
	if want := "a.go keep.log sub/b.go"; strings.Join(got, " ") != want || more {
		t.Errorf("Files = %v (more %v), want %s", got, more, want)
	}
	if got, more := Files(context.Background(), root, 2); len(got) != 2 || !more {
		t.Errorf("limit 2: %v (more %v)", got, more)
	}
}
