package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/openseek/openseek/protocol"
)

// mentionWorkspace is a workspace with an ignored directory and a file
// larger than one mention may carry.
func mentionWorkspace(t *testing.T) string {
	ws := t.TempDir()
	files := map[string]string{
		"main.go":           "package main\n",
		"internal/util.go":  "package internal\n\nfunc Util() {}\n",
		"internal/utils.md": "# utils\n",
		"ignored/secret.go": "secret\n",
		".gitignore":        "ignored/\n",
		"big.txt":           strings.Repeat("0123456789abcdef\n", 8<<10),
	}
	for p, c := range files {
		os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644)
	}
	return ws
}

func mentionModel(t *testing.T, b *scripted) *Model {
	m := New(context.Background(), b, b, Options{NoColor: true, Approval: "ask", Workspace: "/home/dev/project",
		FilesRoot: mentionWorkspace(t), Now: func() time.Time { return epoch }})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

// Typing @ and part of a path offers the workspace's files (ignored ones
// left out); Tab completes the chosen one.
func TestMentionMenu(t *testing.T) {
	b := newScripted()
	m := mentionModel(t, b)
	press(m, "explain @uti")
	if m.filesLoading != true {
		t.Fatalf("typing @ did not start listing the files")
	}
	m.Update(m.loadFiles()())
	s := screen(m)
	golden.RequireEqual(t, s)
	if strings.Contains(s, "secret") {
		t.Errorf("an ignored file is offered:\n%s", s)
	}
	press(m, "down", "tab")
	if v := m.input.Value(); v != "explain @internal/utils.md " {
		t.Errorf("Tab completed to %q", v)
	}
}

// The files a prompt mentions reach the model with it: path and
// contents, a large one cut, an ignored or missing one not at all; the
// transcript names them.
func TestMentionsReachTheModel(t *testing.T) {
	b := newScripted()
	m := mentionModel(t, b)
	press(m, "compare @internal/util.go, @big.txt and @ignored/secret.go @nope.go", "enter")
	cmds := b.commands()
	if len(cmds) != 1 {
		t.Fatalf("commands: %#v", cmds)
	}
	got := contentText(cmds[0].(protocol.PromptCmd).Content)
	for _, want := range []string{
		"compare @internal/util.go, @big.txt and @ignored/secret.go @nope.go\n\nThe files mentioned above",
		"<file path=\"internal/util.go\">\npackage internal\n\nfunc Util() {}\n</file>",
		"<file path=\"big.txt\">",
		"(first 65536 of 139264 bytes shown; read the file for the rest)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the prompt lacks %q:\n%.600s", want, got)
		}
	}
	if strings.Contains(got, "secret\n") || strings.Contains(got, "nope.go\">") {
		t.Errorf("an ignored or missing file was attached")
	}
	if s := screen(m); !strings.Contains(s, "attached internal/util.go, big.txt") || strings.Contains(s, "0123456789abcdef") {
		t.Errorf("the transcript should name the files, not show them:\n%s", s)
	}
	// A resumed session shows the prompt as typed.
	if s := shownText(got); s != "compare @internal/util.go, @big.txt and @ignored/secret.go @nope.go\n[attached internal/util.go, big.txt]" {
		t.Errorf("shownText = %q", s)
	}
}
