package lsp

import (
	"context"
	"github.com/openseek/openseek/internal/e2etest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/tool"
)

// requireProgram fails the test when a server CI should have installed is
// missing: these tests exist to run against the real thing.
func requireProgram(t testing.TB, name string) {
	t.Helper()
	home, _ := os.UserHomeDir()
	if _, err := lookPath(name, home); err == nil {
		return
	}
	install := map[string]string{
		"gopls":              "go install golang.org/x/tools/gopls@v0.23.0",
		"pyright-langserver": "npm install -g pyright@1.1.414",
	}[name]
	e2etest.Need(t, install, name) // skips, or fails under OPENSEEK_E2E=1
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// change runs one edit of path to content through the manager, the way
// the file tools do.
func change(t testing.TB, m *Manager, path, content string) tool.DiagnosticReport {
	t.Helper()
	ctx := context.Background()
	check := m.Before(ctx, []string{path})
	writeFile(t, path, content)
	return check(ctx)
}

func newManager(t testing.TB, root string, o Options) *Manager {
	t.Helper()
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	m := New(root, o)
	t.Cleanup(func() { m.Close() })
	return m
}

func warm(t testing.TB, m *Manager, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := m.Warm(ctx, path); err != nil {
		t.Fatalf("warm %s: %v", filepath.Base(path), err)
	}
}

func hasIntroduced(r tool.DiagnosticReport, path string, line int, msg string) bool {
	for _, d := range r.Introduced {
		if d.Path == path && d.Line == line && strings.Contains(d.Message, msg) {
			return true
		}
	}
	return false
}
