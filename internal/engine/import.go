package engine

import (
	"fmt"
	"runtime"
	"time"

	"github.com/openseek/openseek/internal/importer"
	"github.com/openseek/openseek/internal/prompt"
	"github.com/openseek/openseek/internal/session"
)

// Import writes t, another agent's transcript, as a new session of the
// workspace: id, or a fresh <source>-<time> id when id is "". Its system
// prompt is the one a new session of this workspace gets (the project
// memory included), so the session continues like any other. An id that
// exists is refused: import never appends to a session.
func (h *Host) Import(t *importer.Transcript, id string) (string, error) {
	store := h.Store()
	if id == "" {
		id = session.NewID(t.Source, time.Now())
	}
	if store.Exists(id) {
		return "", fmt.Errorf("session %s already exists: import makes a new session; choose another --session", id)
	}
	dir := h.Workspace()
	memory, _ := prompt.Memory(h.Home(), dir, dir, prompt.DefaultMemoryBytes)
	sys := prompt.Build(prompt.Options{Workspace: dir, OS: runtime.GOOS, Shell: "bash", Memory: memory})
	w, err := store.OpenWriter(id, sys, "openseek import")
	if err != nil {
		return "", err
	}
	defer w.Close()
	if _, err := w.AppendAll(t.Items...); err != nil {
		return "", fmt.Errorf("write session %s: %w", id, err)
	}
	return id, nil
}
