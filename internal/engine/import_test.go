package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/importer"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func TestHostImportWritesANewSessionOfTheWorkspace(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	if err := os.WriteFile(filepath.Join(h.Workspace(), "AGENTS.md"), []byte("Run make check before answering.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &importer.Transcript{Source: "codex", Items: []session.Item{&session.User{Content: protocol.Text("tidy notes.txt")}}}
	id, err := h.Import(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, "codex-") {
		t.Errorf("a fresh import's id %q does not name its source", id)
	}
	s, err := h.LoadSession(id)
	if err != nil {
		t.Fatal(err)
	}
	if s.LastSequence() != 1 {
		t.Errorf("the imported session has %d events, want 1", s.LastSequence())
	}
	if sys := s.SystemPrompt; !strings.Contains(sys, h.Workspace()) || !strings.Contains(sys, "Run make check before answering.") {
		t.Errorf("the system prompt is not the workspace's (with its memory):\n%s", sys)
	}
	if _, err := h.Import(tr, id); err == nil || !strings.Contains(err.Error(), "already exists: import makes a new session") {
		t.Errorf("importing over a session: %v", err)
	}
	if got, err := h.Import(tr, "named"); err != nil || got != "named" {
		t.Errorf("import as --session named: %q %v", got, err)
	}
}
