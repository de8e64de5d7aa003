package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/internal/tool/fs"
)

// goWorkspace is a Go module with a clean main.go, a warm gopls and the
// file tools' Env wired to it.
func goWorkspace(t *testing.T) (*tool.Env, string) {
	t.Helper()
	requireProgram(t, "gopls")
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "go.mod"), goMod)
	main := filepath.Join(ws, "main.go")
	writeFile(t, main, goClean)
	m := newManager(t, ws, Options{Wait: 30 * time.Second})
	warm(t, m, main)
	return &tool.Env{Workspace: ws, Files: tool.NewFileState(), Diagnostics: m}, main
}

func run(t *testing.T, tl tool.Tool, env *tool.Env, args any) tool.Result {
	t.Helper()
	b, _ := json.Marshal(args)
	res, err := tl.Run(context.Background(), env, b)
	if err != nil {
		t.Fatalf("%s: %v", tl.Name, err)
	}
	return res
}

func outcome(t *testing.T, res tool.Result) string {
	t.Helper()
	var d struct {
		Outcome string `json:"outcome"`
	}
	if err := json.Unmarshal(res.Data, &d); err != nil {
		t.Fatal(err)
	}
	return d.Outcome
}

func TestFileToolsReportIntroducedDiagnostics(t *testing.T) {
	env, _ := goWorkspace(t)
	res := run(t, fs.Edit(), env, map[string]any{"path": "main.go", "old_string": "println(\"hi\")", "new_string": "var n int = \"seven\"\n\tprintln(n)", "start_line": 4})
	text := res.Content.Text()
	if res.IsError || !strings.HasPrefix(text, "ok: replaced 1 occurrence(s) at line 4 in main.go") ||
		!strings.Contains(text, "\nmain.go:4:") || !strings.Contains(text, "cannot use \"seven\"") {
		t.Fatalf("edit result %q", text)
	}
	res = run(t, fs.Edit(), env, map[string]any{"path": "main.go", "old_string": "var n int = \"seven\"", "new_string": "var n int = 7", "start_line": 4})
	if text := res.Content.Text(); res.IsError || strings.Contains(text, "cannot use") || !strings.Contains(text, "no new problems; 1 resolved") {
		t.Fatalf("fix result %q", text)
	}
	// write and multi_edit report too, for new files as well.
	res = run(t, fs.Write(), env, map[string]any{"path": "extra.go", "content": "package main\n\nfunc extra() string { return 1 }\n"})
	if text := res.Content.Text(); !strings.Contains(text, "extra.go:3:") {
		t.Errorf("write result %q", text)
	}
	res = run(t, fs.MultiEdit(), env, map[string]any{"edits": []map[string]any{
		{"file": "extra.go", "old_string": "return 1", "new_string": "return \"one\"", "start_line": 3},
		{"file": "main.go", "old_string": "println(n)", "new_string": "println(n, undefinedName)", "start_line": 5},
	}})
	text = res.Content.Text()
	if !strings.Contains(text, "main.go:5:") || !strings.Contains(text, "undefined: undefinedName") || !strings.Contains(text, "(1 earlier problem(s) resolved)") {
		t.Errorf("multi_edit result %q", text)
	}
}

func TestEditRevertsOnErrorDelta(t *testing.T) {
	env, main := goWorkspace(t)
	res := run(t, fs.Edit(), env, map[string]any{
		"path": "main.go", "old_string": "println(\"hi\")", "new_string": "println(missing)", "start_line": 4,
		"revert_if_error_delta_greater_or_equal": 1,
	})
	text := res.Content.Text()
	if !res.IsError || outcome(t, res) != "reverted" || !strings.HasPrefix(text, "reverted: the error count changed by 1 (>= revert_if_error_delta_greater_or_equal=1); main.go was NOT modified") ||
		!strings.Contains(text, "undefined: missing") {
		t.Fatalf("result %q (%s)", text, res.Data)
	}
	if b, _ := os.ReadFile(main); string(b) != goClean {
		t.Errorf("file not restored: %q", b)
	}
	// An edit that adds no error stands.
	res = run(t, fs.Edit(), env, map[string]any{
		"path": "main.go", "old_string": "\"hi\"", "new_string": "\"hello\"", "start_line": 4,
		"revert_if_error_delta_greater_or_equal": 1,
	})
	if res.IsError || outcome(t, res) != "applied" {
		t.Fatalf("clean edit %q", res.Content.Text())
	}
}

// A guard that no server can check leaves the file alone.
func TestEditGuardWithoutServerIsNotApplied(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "notes.txt"), "alpha\n")
	m := newManager(t, ws, Options{})
	env := &tool.Env{Workspace: ws, Files: tool.NewFileState(), Diagnostics: m}
	res := run(t, fs.Edit(), env, map[string]any{"path": "notes.txt", "old_string": "alpha", "new_string": "beta", "start_line": 1, "revert_if_error_delta_greater_or_equal": 1})
	if !res.IsError || outcome(t, res) != "unverified" || !strings.Contains(res.Content.Text(), "not applied: a diagnostic guard was requested") {
		t.Fatalf("result %q", res.Content.Text())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "alpha\n" {
		t.Errorf("file changed: %q", b)
	}
}

// A crashing server does not fail the edit.
func TestCrashingServerDoesNotFailTheEdit(t *testing.T) {
	m, path := fakeManager(t, "crash", 400*time.Millisecond)
	warm(t, m, path)
	env := &tool.Env{Workspace: filepath.Dir(path), Files: tool.NewFileState(), Diagnostics: m}
	for i, next := range []string{"two", "three"} {
		old := []string{"one", "two"}[i]
		res := run(t, fs.Edit(), env, map[string]any{"path": "a.fake", "old_string": old, "new_string": next, "start_line": 1})
		if res.IsError || !strings.HasPrefix(res.Content.Text(), "ok: replaced 1 occurrence(s)") || !strings.Contains(res.Content.Text(), "diagnostics: not checked") {
			t.Fatalf("edit %d: %q", i, res.Content.Text())
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "three\n" {
		t.Errorf("file %q", b)
	}
}
