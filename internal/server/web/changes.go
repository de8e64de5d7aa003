package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/internal/session"
)

// changesPanel is the session page's changes panel: what the session
// changed in the workspace's files (its whole diff, per file) and its
// turns, each of which the files and conversation can be rewound to
// before. It is the engine's Changes and Rewind, as the terminal UI's
// /diff and /rewind use them.
type changesPanel struct {
	ID      string
	Since   int // the first turn with a snapshot, 0 for none
	Summary string
	Files   []diffFile
	Turns   []turnRow
	Error   string
}

type turnRow struct {
	N        int
	Prompt   string
	Rewind   bool // it has a snapshot to go back to
	Rewound  bool // a later rewind hid it
	Sequence int
}

// changes answers the panel's HTML. Reading the changes takes a snapshot
// of the files now (the snapshot store's bookkeeping, as /diff does);
// nothing of the workspace or the session changes.
func (a *app) changes(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := session.ValidateID(id); err != nil {
		a.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	h := a.host
	p := changesPanel{ID: id}
	turns, _, err := engine.Turns(h.Workspace(), h.SessionRoot(), id)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, os.ErrNotExist) {
			status = http.StatusNotFound
		}
		a.fail(w, status, err.Error())
		return
	}
	diff, since, err := engine.Changes(r.Context(), h.Home(), h.Workspace(), h.SessionRoot(), id)
	if err != nil {
		p.Error = "the changes could not be read: " + err.Error()
	}
	p.Since, p.Files = since, diffFiles(diff)
	switch {
	case since == 0:
		p.Summary = "No snapshot was recorded for this session's turns, so its changes are not known."
	case len(p.Files) == 0:
		p.Summary = fmt.Sprintf("No file changed since before turn %d.", since)
	default:
		p.Summary = fmt.Sprintf("Since before turn %d: %s changed.", since, render.Count(len(p.Files), "file"))
	}
	for _, t := range turns {
		p.Turns = append(p.Turns, turnRow{N: t.Number, Prompt: clip(oneLine(t.Prompt), 100), Rewind: t.Snapshot != "" && !a.o.ReadOnly, Sequence: t.Sequence})
	}
	pageHeaders(w.Header())
	if err := a.chat.ExecuteTemplate(w, "changes", p); err != nil {
		w.Write([]byte("<p class=\"error\">rendering failed: " + err.Error() + "</p>"))
	}
}

// rewind puts the files back as they were before a turn and hides that
// turn and what followed from the model (engine.Rewind, as `openseek
// rewind --conversation` and the terminal UI's /rewind). The rewind holds
// the session's log, so an open session is closed first (its readers'
// streams end; the page reopens it); one whose turn runs is refused.
func (a *app) rewind(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var req struct {
		Turn int `json:"turn"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<10))
	if err := json.Unmarshal(body, &req); err != nil || req.Turn < 1 {
		jsonError(w, http.StatusBadRequest, `the body must be {"turn": N}, N the turn (from 1) to rewind to before`)
		return
	}
	if err := session.ValidateID(id); err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	if s, ok := a.host.Get(id); ok {
		if s.Busy() {
			jsonError(w, http.StatusConflict, "a turn of session "+id+" is running; cancel it (Esc), then rewind")
			return
		}
		if err := s.Close(); err != nil {
			jsonError(w, http.StatusInternalServerError, "close session "+id+" to rewind it: "+err.Error())
			return
		}
	}
	h := a.host
	out, err := engine.Rewind(r.Context(), engine.RewindOptions{Dir: h.Workspace(), SessionRoot: h.SessionRoot(), Home: h.Home(),
		SessionID: id, Turn: req.Turn, Conversation: true})
	if err != nil {
		jsonError(w, http.StatusConflict, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"turn": req.Turn, "files": len(out.Files.Changes), "saved": out.Files.Saved})
}

func jsonError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
