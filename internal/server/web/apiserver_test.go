package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/protocol"
)

// testToken is the stand-in server's token; pages are opened with it in
// the fragment, as the printed URL carries it.
const testToken = "web-test-token"

// apiServer is a test-only stand-in for package httpapi's routes that the
// pages use (POST /v1/sessions, the SSE event stream, the commands
// endpoint), written to API.md over the engine.Session API, with the web
// handler at "/". Its auth is httpapi's: a GET outside /v1/ without the
// Authorization header gets the Shell; everything else needs the Bearer
// token.
func apiServer(h *engine.Host, o Options) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", New(h, o))
	shell := Shell()
	guarded := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" && r.Method == "GET" && !strings.HasPrefix(r.URL.Path, "/v1/") {
			shell.ServeHTTP(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+testToken {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"missing or wrong token"}`)
			return
		}
		mux.ServeHTTP(w, r)
	})
	if o.ReadOnly {
		return guarded
	}
	jsonErr := func(w http.ResponseWriter, status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"error": msg})
	}
	open := func(r *http.Request, id string) (*engine.Session, error) {
		if s, ok := h.Get(id); ok {
			return s, nil
		}
		if _, err := h.LoadSession(id); err != nil {
			return nil, err
		}
		return h.Open(r.Context(), engine.OpenOptions{ID: id})
	}
	mux.HandleFunc("GET /v1/sessions", func(w http.ResponseWriter, r *http.Request) {
		rows, err := h.SessionInfos()
		if err != nil {
			jsonErr(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(rows)
	})
	mux.HandleFunc("POST /v1/sessions", func(w http.ResponseWriter, r *http.Request) {
		var body struct{ ID, Model string }
		json.NewDecoder(r.Body).Decode(&body)
		s, err := h.Open(context.Background(), engine.OpenOptions{ID: body.ID, Model: body.Model})
		if err != nil {
			jsonErr(w, http.StatusBadRequest, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]string{"id": s.ID()})
	})
	mux.HandleFunc("POST /v1/sessions/{id}/commands", func(w http.ResponseWriter, r *http.Request) {
		s, err := open(r, r.PathValue("id"))
		if err != nil {
			jsonErr(w, http.StatusNotFound, err.Error())
			return
		}
		line, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		cmd, err := protocol.ParseCommand(line)
		if err != nil {
			jsonErr(w, http.StatusBadRequest, err.Error())
			return
		}
		if err := s.Apply(cmd); err != nil {
			jsonErr(w, http.StatusConflict, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"accepted":true}`)
	})
	mux.HandleFunc("GET /v1/sessions/{id}/events", func(w http.ResponseWriter, r *http.Request) {
		s, ok := h.Get(r.PathValue("id"))
		if !ok {
			jsonErr(w, http.StatusConflict, "not open")
			return
		}
		since, _ := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
		if v := r.Header.Get("Last-Event-ID"); v != "" {
			since, _ = strconv.ParseInt(v, 10, 64)
		}
		sub := s.Subscribe(since)
		defer sub.Close()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-store")
		rc := http.NewResponseController(w)
		w.WriteHeader(http.StatusOK)
		rc.Flush()
		for {
			batch, err := sub.Next(r.Context(), 0)
			var lag *engine.Lag
			switch {
			case errors.As(err, &lag):
				fmt.Fprintf(w, "event: stream_reset\ndata: %s\n\n", protocol.Emit(lag.Reset()))
			case err != nil:
				return
			}
			for _, e := range batch {
				fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Event.EventName(), e.Line)
			}
			if rc.Flush() != nil {
				return
			}
		}
	})
	return guarded
}
