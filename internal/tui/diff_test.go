package tui

import (
	"context"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// differing is the scripted backend that knows the session's changes.
type differing struct{ *scripted }

func (differing) Changes(context.Context, string) (string, int, error) {
	return "diff --git a/one.txt b/one.txt\nnew file mode 100644\n--- /dev/null\n+++ b/one.txt\n@@ -0,0 +1 @@\n+one\n" +
		"diff --git a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n@@ -1,2 +1,2 @@\n package main\n-func old() {}\n+func new() {}\n", 1, nil
}

// /diff shows the session's changes whole, coloured as a diff.
func TestDiffCommand(t *testing.T) {
	s := newScripted()
	m := newModel(t, s)
	m.backend = differing{s}
	_, cmd := m.Update(keyMsg("enter")) // nothing typed: nothing sent
	if cmd != nil {
		t.Fatal("an empty Enter did something")
	}
	press(m, "/diff")
	_, cmd = m.Update(keyMsg("enter"))
	if cmd == nil {
		t.Fatal("/diff asked for nothing")
	}
	m.Update(cmd())
	golden.RequireEqual(t, screen(m))
}
