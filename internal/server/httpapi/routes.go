package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strconv"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// LastEventHeader carries, with a session snapshot, the sequence of the
// newest event of its live stream: subscribe with ?since= that value to
// follow on from the snapshot.
const LastEventHeader = "X-OpenSeek-Last-Event-ID"

// ModelHeader and WindowHeader name, with the snapshot of an open session,
// the model it runs on and that model's context window in tokens: a client
// attaching to it (tui --attach) shows them, not its own default.
const (
	ModelHeader  = "X-OpenSeek-Model"
	WindowHeader = "X-OpenSeek-Model-Window"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", s.health)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /v1/sessions", s.listSessions)
	mux.HandleFunc("GET /v1/sessions/{id}", s.showSession)
	mux.HandleFunc("GET /v1/sessions/{id}/events", s.events)
	if s.o.ReadOnly {
		mux.HandleFunc("POST /v1/sessions", readOnly)
		mux.HandleFunc("POST /v1/sessions/{id}/commands", readOnly)
	} else {
		mux.HandleFunc("POST /v1/sessions", s.createSession)
		mux.HandleFunc("POST /v1/sessions/{id}/commands", s.command)
	}
	var mounted *http.ServeMux
	if s.o.Mount != nil && !s.o.ReadOnly {
		mounted = http.NewServeMux()
		s.o.Mount(mounted)
	}
	mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		if mounted != nil {
			if _, pattern := mounted.Handler(r); pattern != "" {
				s.serveMounted(mounted, w, r)
				return
			}
		}
		writeError(w, http.StatusNotFound, "no API route "+r.Method+" "+r.URL.Path+"; see the routes in docs/web.md#http-api")
	})
	mux.Handle("/", s.o.Web)
	return mux
}

// serveMounted answers a request of a mounted route; its context ends
// when the server shuts down, so a mounted event stream ends too.
func (s *Server) serveMounted(h http.Handler, w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.streams, cancel)
	defer stop()
	h.ServeHTTP(w, r.WithContext(ctx))
}

func readOnly(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "GET")
	writeError(w, http.StatusMethodNotAllowed, "this server is read-only (openseek inspect): sessions can be read, not changed; use `openseek serve --http` to drive them")
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "workspace": s.host.Workspace()})
}

type modelRow struct {
	Spec   string `json:"spec"`
	Window int    `json:"window"`
	Ready  bool   `json:"ready"`
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	rows := []modelRow{}
	for _, m := range s.host.Models() {
		rows = append(rows, modelRow{Spec: m.Spec(), Window: m.Window, Ready: m.Ready})
	}
	writeJSON(w, http.StatusOK, rows)
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	rows, err := s.host.SessionInfos()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "list sessions: "+err.Error())
		return
	}
	if rows == nil {
		rows = []engine.SessionInfo{}
	}
	writeJSON(w, http.StatusOK, rows)
}

type createRequest struct {
	ID    string `json:"id"`
	Model string `json:"model"`
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var req createRequest
	if len(body) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			writeError(w, http.StatusBadRequest, `the body must be {"id"?: string, "model"?: string}: `+err.Error())
			return
		}
	}
	if req.ID != "" {
		if err := session.ValidateID(req.ID); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	sess, err := s.host.Open(r.Context(), engine.OpenOptions{ID: req.ID, Model: req.Model, Holder: s.o.Holder})
	if err != nil {
		writeError(w, http.StatusBadRequest, "open session: "+err.Error())
		return
	}
	created := map[string]any{"id": sess.ID()}
	if m := sess.Model(); m != nil {
		created["model"], created["window"] = m.Spec, m.Window
	}
	writeJSON(w, http.StatusCreated, created)
}

func (s *Server) showSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var head int64
	var snap *session.Session
	if sess, ok := s.host.Get(id); ok {
		// The head is read before the snapshot: an event in between is
		// then seen twice by a client that follows on, never lost.
		head = sess.Hub().Head()
		snap = sess.Snapshot()
		if m := sess.Model(); m != nil {
			w.Header().Set(ModelHeader, m.Spec)
			w.Header().Set(WindowHeader, strconv.Itoa(m.Window))
		}
	} else {
		var err error
		if snap, err = s.host.LoadSession(id); err != nil {
			sessionError(w, id, err)
			return
		}
	}
	w.Header().Set(LastEventHeader, strconv.FormatInt(head, 10))
	writeRaw(w, http.StatusOK, snap.MarshalSnapshot())
}

// sessionError answers a session that cannot be read or opened.
func sessionError(w http.ResponseWriter, id string, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		writeError(w, http.StatusNotFound, "no session "+quote(id)+" in this workspace; GET /v1/sessions lists them")
	case session.ValidateID(id) != nil:
		writeError(w, http.StatusNotFound, "no session "+quote(id)+": "+err.Error())
	default:
		writeError(w, http.StatusInternalServerError, "session "+id+": "+err.Error())
	}
}

// live returns the open session id, opening (resuming) it from disk when
// it exists there; ok is false when an error was answered.
func (s *Server) live(w http.ResponseWriter, r *http.Request, id string) (*engine.Session, bool) {
	if sess, ok := s.host.Get(id); ok {
		return sess, true
	}
	if err := session.ValidateID(id); err != nil {
		sessionError(w, id, err)
		return nil, false
	}
	if !s.host.Store().Exists(id) {
		sessionError(w, id, fs.ErrNotExist)
		return nil, false
	}
	sess, err := s.host.Open(r.Context(), engine.OpenOptions{ID: id, Holder: s.o.Holder})
	if err != nil {
		writeError(w, http.StatusConflict, "open session "+id+": "+err.Error())
		return nil, false
	}
	return sess, true
}

func (s *Server) command(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, open := s.host.Get(id); !open && (session.ValidateID(id) != nil || !s.host.Store().Exists(id)) {
		sessionError(w, id, fs.ErrNotExist)
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	cmd, err := protocol.ParseCommand(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	sess, ok := s.live(w, r, id)
	if !ok {
		return
	}
	if err := sess.Apply(cmd); err != nil {
		status := http.StatusConflict
		if errors.Is(err, engine.ErrUnknownCommand) {
			status = http.StatusBadRequest
		}
		writeError(w, status, err.Error())
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]bool{"accepted": true})
}

// readBody reads the whole body; over MaxBody it answers 413.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "the body is over "+strconv.Itoa(MaxBody>>20)+" MiB; send a smaller one (large files belong in the workspace, not in a prompt)")
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, "read the body: "+err.Error())
		return nil, false
	}
	return body, true
}
