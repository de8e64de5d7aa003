package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkMemory measures reading AGENTS.md from a repository five
// directories deep, each file 4 KiB.
func BenchmarkMemory(b *testing.B) {
	repo := b.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	dir := repo
	for _, d := range []string{"a", "b", "c", "d", "e"} {
		writeFile(b, filepath.Join(dir, "AGENTS.md"), strings.Repeat("rule\n", 800))
		dir = filepath.Join(dir, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, files := Memory("", repo, dir, 0); len(files) != 5 {
			b.Fatalf("files %v", files)
		}
	}
}
