package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/tool"
)

// tree is the workspace the tool tests search: nested .gitignore files
// with a negation, a hidden directory, a binary file, a symlink out of
// the workspace and a .git directory.
var tree = map[string]string{
	".gitignore":           "*.log\nbuild/\n/top-only.txt\n",
	"main.go":              "package main\n\nfunc main() {\n\tprintln(\"needle\")\n}\n",
	"top-only.txt":         "needle at the top\n",
	"debug.log":            "needle in a log\n",
	"build/out.go":         "package build // needle\n",
	"pkg/a.go":             "package pkg\n\n// needle one\nvar A = 1\n",
	"pkg/top-only.txt":     "needle not anchored here\n",
	"pkg/.gitignore":       "generated/\n!keep.log\n*.tmp\n",
	"pkg/keep.log":         "needle kept by negation\n",
	"pkg/x.tmp":            "needle tmp\n",
	"pkg/generated/z.go":   "package generated // needle\n",
	"pkg/sub/b.go":         "package sub\n\nfunc B() string { return \"Needle\" }\n",
	"pkg/sub/.gitignore":   "!*.tmp\n",
	"pkg/sub/y.tmp":        "needle re-included below\n",
	".hidden/secret.go":    "package hidden // needle\n",
	".git/config":          "needle in git\n",
	"bin/tool":             "needle\x00\x01binary",
	"docs/readme.md":       "# Title\n\nline 3\nneedle on 4\nline 5\nline 6\nline 7\nneedle on 8\nline 9\n",
	"vendor/.ignore":       "*\n",
	"vendor/lib/v.go":      "package lib // needle\n",
	"deep/a/b/c/d/e.txt":   "deep\n",
	"many/.gitkeep":        "",
	"crlf/windows.txt":     "first\r\nneedle crlf\r\n",
	"unicode/ü.txt":        "needle ünïcode\n",
	"pkg/sub/empty.go":     "",
	"pkg/sub/noeol.go":     "needle without eol",
	"docs/needle-name.txt": "x\n",
}

func newEnv(t *testing.T) *tool.Env {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range tree {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "leak.go"), []byte("needle outside\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "leak.go"), filepath.Join(ws, "leak.go")); err != nil {
		t.Fatal(err)
	}
	return &tool.Env{Workspace: ws}
}

func call(t *testing.T, tl tool.Tool, env *tool.Env, args map[string]any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tl.Run(context.Background(), env, raw)
	if err != nil && !res.IsError {
		t.Fatalf("%s: %v", tl.Name, err)
	}
	return res
}

func TestGrep(t *testing.T) {
	env := newEnv(t)
	tests := []struct {
		name    string
		args    map[string]any
		want    string // the whole result text
		isError bool
	}{
		{
			name: "gitignore nested with negations",
			args: map[string]any{"pattern": "needle"},
			want: "crlf/windows.txt:2:needle crlf\n" +
				"docs/readme.md:4:needle on 4\n" +
				"docs/readme.md:8:needle on 8\n" +
				"main.go:4:\tprintln(\"needle\")\n" +
				"pkg/a.go:3:// needle one\n" +
				"pkg/keep.log:1:needle kept by negation\n" +
				"pkg/sub/noeol.go:1:needle without eol\n" +
				"pkg/sub/y.tmp:1:needle re-included below\n" +
				"pkg/top-only.txt:1:needle not anchored here\n" +
				"unicode/ü.txt:1:needle ünïcode",
		},
		{
			name: "ignore case",
			args: map[string]any{"pattern": "NEEDLE\"", "ignore_case": true, "path": "pkg"},
			want: "pkg/sub/b.go:3:func B() string { return \"Needle\" }",
		},
		{
			name: "regexp without a literal",
			args: map[string]any{"pattern": `^[A-Z]\w+ \d$`, "path": "pkg"},
			want: "no matches",
		},
		{
			name: "regexp with anchors",
			args: map[string]any{"pattern": `^line [35]$`, "path": "docs"},
			want: "docs/readme.md:3:line 3\ndocs/readme.md:5:line 5",
		},
		{
			name: "context lines merge and separate",
			args: map[string]any{"pattern": "needle", "path": "docs/readme.md", "context": 1},
			want: "docs/readme.md-3-line 3\ndocs/readme.md:4:needle on 4\ndocs/readme.md-5-line 5\n--\n" +
				"docs/readme.md-7-line 7\ndocs/readme.md:8:needle on 8\ndocs/readme.md-9-line 9",
		},
		{
			name: "overlapping context",
			args: map[string]any{"pattern": "needle", "path": "docs/readme.md", "context": 3},
			want: "docs/readme.md-1-# Title\ndocs/readme.md-2-\ndocs/readme.md-3-line 3\ndocs/readme.md:4:needle on 4\n" +
				"docs/readme.md-5-line 5\ndocs/readme.md-6-line 6\ndocs/readme.md-7-line 7\ndocs/readme.md:8:needle on 8\ndocs/readme.md-9-line 9",
		},
		{
			name: "glob filter",
			args: map[string]any{"pattern": "needle", "glob": "*.go"},
			want: "main.go:4:\tprintln(\"needle\")\npkg/a.go:3:// needle one\npkg/sub/noeol.go:1:needle without eol",
		},
		{
			name: "glob relative to path, anchored",
			args: map[string]any{"pattern": "needle", "path": "pkg", "glob": "*.go"},
			want: "pkg/a.go:3:// needle one\npkg/sub/noeol.go:1:needle without eol",
		},
		{
			name: "anchored glob does not descend",
			args: map[string]any{"pattern": "needle", "path": "pkg", "glob": "sub/*.go"},
			want: "pkg/sub/noeol.go:1:needle without eol",
		},
		{
			name: "files only",
			args: map[string]any{"pattern": "needle", "files_only": true, "path": "pkg"},
			want: "pkg/a.go\npkg/keep.log\npkg/sub/noeol.go\npkg/sub/y.tmp\npkg/top-only.txt",
		},
		{
			name: "limit cuts with a footer",
			args: map[string]any{"pattern": "needle", "limit": 2},
			want: "crlf/windows.txt:2:needle crlf\ndocs/readme.md:4:needle on 4\n" +
				"<system>showing 2 of 10 matching lines in 9 files; narrow the pattern, path or glob, or raise limit</system>",
		},
		{
			name: "explicit hidden directory is searched",
			args: map[string]any{"pattern": "needle", "path": ".hidden"},
			want: ".hidden/secret.go:1:package hidden // needle",
		},
		{
			name: "explicit ignored directory is searched",
			args: map[string]any{"pattern": "needle", "path": "pkg/generated"},
			want: "pkg/generated/z.go:1:package generated // needle",
		},
		{
			name:    "invalid regexp",
			args:    map[string]any{"pattern": "a(b"},
			want:    "error: grep: invalid RE2 pattern: error parsing regexp: missing closing ): `a(b`",
			isError: true,
		},
		{
			name:    "outside the workspace",
			args:    map[string]any{"pattern": "x", "path": "../"},
			isError: true,
		},
		{
			name:    "through a symlink out of the workspace",
			args:    map[string]any{"pattern": "needle", "path": "link"},
			isError: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, Grep(), env, tc.args)
			got := res.Content.Text()
			if res.IsError != tc.isError {
				t.Fatalf("error=%v, want %v: %s", res.IsError, tc.isError, got)
			}
			if tc.isError && tc.want == "" {
				if !strings.Contains(got, "outside the workspace") {
					t.Errorf("got %q, want an outside-the-workspace error", got)
				}
				return
			}
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestGrepBoundsLongOutput(t *testing.T) {
	ws := t.TempDir()
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "match %d %s\n", i, strings.Repeat("x", 400))
	}
	os.WriteFile(filepath.Join(ws, "big.txt"), []byte(b.String()), 0o644)
	res := call(t, Grep(), &tool.Env{Workspace: ws}, map[string]any{"pattern": "match", "limit": 2000})
	got := res.Content.Text()
	if len(got) > maxOutputSize+300 {
		t.Errorf("output is %d bytes, want at most about %d", len(got), maxOutputSize)
	}
	if !strings.Contains(got, "big.txt:2:match 1 xxx") || !strings.Contains(got, "…\n") {
		t.Errorf("lines are not clipped: %.200s", got)
	}
	if !strings.HasSuffix(got, "of 3000 matching lines in 1 file; narrow the pattern, path or glob, or raise limit</system>") {
		t.Errorf("footer missing: …%s", got[max(0, len(got)-200):])
	}
}

func TestGlob(t *testing.T) {
	env := newEnv(t)
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{name: "doublestar", args: map[string]any{"pattern": "**/*.go"}, want: "main.go\npkg/a.go\npkg/sub/b.go\npkg/sub/empty.go\npkg/sub/noeol.go"},
		{name: "bare name matches at any depth", args: map[string]any{"pattern": "*.tmp"}, want: "pkg/sub/y.tmp"},
		{name: "literal base directory", args: map[string]any{"pattern": "pkg/sub/*.go"}, want: "pkg/sub/b.go\npkg/sub/empty.go\npkg/sub/noeol.go"},
		{name: "anchored pattern stays at its level", args: map[string]any{"pattern": "pkg/*.go"}, want: "pkg/a.go"},
		{name: "relative to path", args: map[string]any{"pattern": "sub/b*", "path": "pkg"}, want: "pkg/sub/b.go"},
		{name: "hidden when named", args: map[string]any{"pattern": ".hidden/*.go"}, want: ".hidden/secret.go"},
		{name: "braces", args: map[string]any{"pattern": "**/*.{md,txt}", "path": "docs"}, want: "docs/needle-name.txt\ndocs/readme.md"},
		{name: "limit", args: map[string]any{"pattern": "**/*.go", "limit": 2}, want: "main.go\npkg/a.go\n<system>showing 2 of 5 files; narrow the pattern or path, or raise limit</system>"},
		{name: "nothing", args: map[string]any{"pattern": "**/*.rs"}, want: "no files match **/*.rs"},
		{name: "bad pattern", args: map[string]any{"pattern": "[a-"}, want: "error: glob: invalid glob pattern \"[a-\"", isError: true},
		{name: "absolute pattern", args: map[string]any{"pattern": "/etc/*"}, want: "error: glob: the pattern must be relative; give the directory as path", isError: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, Glob(), env, tc.args)
			if got := res.Content.Text(); got != tc.want || res.IsError != tc.isError {
				t.Errorf("got (error=%v):\n%s\nwant:\n%s", res.IsError, got, tc.want)
			}
		})
	}
}

func TestList(t *testing.T) {
	env := newEnv(t)
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{name: "subdirectory", args: map[string]any{"path": "pkg"}, want: "a.go\nkeep.log\nsub/\n  b.go\n  empty.go\n  noeol.go\n  y.tmp\ntop-only.txt"},
		{name: "depth", args: map[string]any{"path": "deep", "depth": 3}, want: "a/\n  b/\n    c/"},
		{name: "limit", args: map[string]any{"path": "docs", "limit": 1}, want: "needle-name.txt\n<system>showing 1 of 2 entries; list a subdirectory or raise limit</system>"},
		{name: "empty after ignores", args: map[string]any{"path": "vendor"}, want: "(empty directory)"},
		{name: "ignored directory named explicitly", args: map[string]any{"path": "pkg/generated"}, want: "z.go"},
		{name: "file", args: map[string]any{"path": "main.go"}, want: "error: list: main.go is not a directory; use read for files", isError: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, List(), env, tc.args)
			if got := res.Content.Text(); got != tc.want || res.IsError != tc.isError {
				t.Errorf("got (error=%v):\n%s\nwant:\n%s", res.IsError, got, tc.want)
			}
		})
	}
	// The root listing shows what git would: no ignored, hidden or
	// linked-out entries beyond their names.
	res := call(t, List(), env, map[string]any{"depth": 1})
	want := "bin/\ncrlf/\ndeep/\ndocs/\nleak.go@\nlink@\nmain.go\nmany/\npkg/\nunicode/\nvendor/"
	if got := res.Content.Text(); got != want {
		t.Errorf("root listing:\n%s\nwant:\n%s", got, want)
	}
}

func TestSchemasAreTight(t *testing.T) {
	total := 0
	for _, tl := range Tools() {
		total += len(tl.Name) + len(tl.Description) + len(tl.Schema)
		if strings.Contains(string(tl.Schema), "additionalProperties") {
			t.Errorf("%s schema is not tight: %s", tl.Name, tl.Schema)
		}
	}
	if total > 2200 {
		t.Errorf("search tools cost %d bytes of name+description+schema; keep them under 2200", total)
	}
}
