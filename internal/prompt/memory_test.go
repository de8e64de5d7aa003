package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func block(path, text string) string {
	return "<file path=\"" + path + "\">\n" + text + "\n</file>\n"
}

func TestMemoryOrder(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	repo := filepath.Join(base, "src", "repo")
	sub := filepath.Join(repo, "svc", "api")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".openseek", "AGENTS.md"), "global rules\n")
	writeFile(t, filepath.Join(base, "src", "AGENTS.md"), "above the repo: never read\n")
	writeFile(t, filepath.Join(repo, "AGENTS.md"), "repo rules")
	writeFile(t, filepath.Join(repo, "svc", "AGENTS.md"), "  \n\n") // blank: skipped
	writeFile(t, filepath.Join(sub, "AGENTS.md"), "api rules")
	writeFile(t, filepath.Join(repo, "other", "AGENTS.md"), "sibling: never read")

	// Workspace without .git above: the workspace is the root.
	plain := filepath.Join(base, "plain")
	writeFile(t, filepath.Join(plain, "AGENTS.md"), "plain root")
	writeFile(t, filepath.Join(plain, "pkg", "AGENTS.md"), "plain pkg")

	// A worktree's .git is a file.
	wt := filepath.Join(base, "wt")
	writeFile(t, filepath.Join(wt, ".git"), "gitdir: elsewhere\n")
	writeFile(t, filepath.Join(wt, "AGENTS.md"), "worktree")

	tests := []struct {
		name                 string
		home, workspace, cwd string
		want                 []string // paths in order
		texts                []string
	}{
		{"home then root down to cwd", home, repo, sub,
			[]string{filepath.Join(home, ".openseek", "AGENTS.md"), filepath.Join(repo, "AGENTS.md"), filepath.Join(sub, "AGENTS.md")},
			[]string{"global rules", "repo rules", "api rules"}},
		{"git root above the workspace", "", sub, sub,
			[]string{filepath.Join(repo, "AGENTS.md"), filepath.Join(sub, "AGENTS.md")}, []string{"repo rules", "api rules"}},
		{"cwd defaults to workspace", "", repo, "",
			[]string{filepath.Join(repo, "AGENTS.md")}, []string{"repo rules"}},
		{"no git: workspace is the root", "", plain, filepath.Join(plain, "pkg"),
			[]string{filepath.Join(plain, "AGENTS.md"), filepath.Join(plain, "pkg", "AGENTS.md")}, []string{"plain root", "plain pkg"}},
		{"worktree .git file", "", wt, wt, []string{filepath.Join(wt, "AGENTS.md")}, []string{"worktree"}},
		{"nothing", filepath.Join(base, "nohome"), filepath.Join(base, "empty"), "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, files := Memory(tt.home, tt.workspace, tt.cwd, 0)
			if !reflect.DeepEqual(files, tt.want) {
				t.Fatalf("files %v\nwant %v", files, tt.want)
			}
			var want strings.Builder
			for i, p := range tt.want {
				want.WriteString(block(p, tt.texts[i]))
			}
			if text != want.String() {
				t.Fatalf("text %q\nwant %q", text, want.String())
			}
		})
	}
}

func TestMemorySymlinkedOnce(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "AGENTS.md"), "rules")
	// home == repo: the global file and the repo file differ in path, but
	// a home whose .openseek/AGENTS.md links to the repo's is read once.
	if err := os.Mkdir(filepath.Join(repo, ".openseek"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repo, "AGENTS.md"), filepath.Join(repo, ".openseek", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	_, files := Memory(repo, repo, repo, 0)
	if len(files) != 1 {
		t.Fatalf("files %v, want one", files)
	}
}

func TestMemoryCap(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "sub")
	line := strings.Repeat("é", 30) + "\n" // multi-byte runes: cuts must not split one
	writeFile(t, filepath.Join(repo, "AGENTS.md"), strings.Repeat(line, 40))
	writeFile(t, filepath.Join(sub, "AGENTS.md"), strings.Repeat(line, 40))
	whole, _ := Memory("", repo, sub, 1<<20)
	a, b := filepath.Join(repo, "AGENTS.md"), filepath.Join(sub, "AGENTS.md")
	firstEnd := strings.Index(whole, "<file path=\""+b)

	if text, files := Memory("", repo, sub, len(whole)); text != whole || len(files) != 2 {
		t.Fatalf("text that fits was changed: %d files", len(files))
	}
	if def, _ := Memory("", repo, sub, 0); def != whole {
		t.Fatalf("default cap cut %d bytes of %d", len(whole)-len(def), len(whole))
	}
	seen := map[string]bool{}
	for limit := 40; limit < len(whole); limit += 13 {
		text, files := Memory("", repo, sub, limit)
		if len(text) > limit {
			t.Fatalf("cap %d: len %d", limit, len(text))
		}
		if strings.ContainsRune(text, '\uFFFD') || !utf8.ValidString(text) {
			t.Fatalf("cap %d: split rune", limit)
		}
		kept, note, ok := strings.Cut(text, "\n[AGENTS.md text is ")
		if !ok || kept == "" {
			if files != nil {
				t.Fatalf("cap %d: only a cut note expected, got files %v", limit, files)
			}
			continue
		}
		if !strings.HasPrefix(whole, kept) {
			t.Fatalf("cap %d: kept text is not a prefix of the whole", limit)
		}
		if limit > 1000 && !strings.HasSuffix(kept, "\n") {
			t.Fatalf("cap %d: not cut at a line break", limit)
		}
		var wantFiles, wantCut []string
		wantFiles = append(wantFiles, a)
		if len(kept) > firstEnd {
			wantFiles = append(wantFiles, b)
		}
		if len(kept) < firstEnd {
			wantCut = append(wantCut, a)
		}
		wantCut = append(wantCut, b)
		if !reflect.DeepEqual(files, wantFiles) {
			t.Fatalf("cap %d: files %v, want %v", limit, files, wantFiles)
		}
		if want := "was cut here; read " + strings.Join(wantCut, ", ") + " directly for the rest]\n"; !strings.HasSuffix(note, want) {
			t.Fatalf("cap %d: note %q, want suffix %q", limit, note, want)
		}
		seen[fmt.Sprintf("%d files, %d cut", len(files), len(wantCut))] = true
	}
	for _, k := range []string{"1 files, 2 cut", "1 files, 1 cut", "2 files, 1 cut"} {
		if !seen[k] {
			t.Errorf("no cap gave %s (saw %v)", k, seen)
		}
	}
}
