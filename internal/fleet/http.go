package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Routes registers the fleet's HTTP API on mux, for the HTTP server to
// mount behind its authentication:
//
//	POST /v1/tasks                 body: a Spec → 201 the task record
//	     ({"workflow":NAME,"args":[…]} runs a workflow the worker knows)
//	GET  /v1/tasks                 → 200 [task records]
//	GET  /v1/tasks/{id}            → 200 the record (with "runs" for best-of-N); 404
//	POST /v1/tasks/{id}/cancel     → 200 the record; 409 when already finished
//	GET  /v1/tasks/{id}/events     → text/event-stream of the task's session
//	     events (id: stream sequence, event: protocol event name, data: the
//	     protocol JSON line) until its end, sent as "event: task_end" with
//	     data {"state":…,"error":…}; resume with Last-Event-ID or ?since=.
//	     ?follow=0 stops at the newest event instead.
//
// Errors are JSON {"error":"text"}.
func (c *Client) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/tasks", c.httpAdd)
	mux.HandleFunc("GET /v1/tasks", c.httpList)
	mux.HandleFunc("GET /v1/tasks/{id}", c.httpGet)
	mux.HandleFunc("POST /v1/tasks/{id}/cancel", c.httpCancel)
	mux.HandleFunc("GET /v1/tasks/{id}/events", c.httpEvents)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrMalformed):
		return http.StatusUnprocessableEntity
	}
	return http.StatusInternalServerError
}

func (c *Client) httpAdd(w http.ResponseWriter, r *http.Request) {
	var spec Spec
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Errorf("the body must be a task spec {\"prompt\"|\"workflow\",\"dir\"|\"repo\",…}: %v", err))
		return
	}
	if err := spec.Validate(); err != nil {
		writeErr(w, http.StatusBadRequest, err)
		return
	}
	t, err := c.Add(r.Context(), spec)
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusCreated, t)
}

func (c *Client) httpList(w http.ResponseWriter, r *http.Request) {
	ts, err := c.List(r.Context())
	if err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	if ts == nil {
		ts = []*Task{}
	}
	writeJSON(w, http.StatusOK, ts)
}

func (c *Client) httpGet(w http.ResponseWriter, r *http.Request) {
	t, err := c.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	var runs []*Task
	for _, id := range t.Children {
		rt, err := c.Get(r.Context(), id)
		if err != nil {
			writeErr(w, statusOf(err), err)
			return
		}
		runs = append(runs, rt)
	}
	writeJSON(w, http.StatusOK, struct {
		*Task
		Runs []*Task `json:"runs,omitempty"`
	}{t, runs})
}

func (c *Client) httpCancel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := c.Get(r.Context(), id); err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	t, err := c.Cancel(r.Context(), id)
	if err != nil {
		writeErr(w, http.StatusConflict, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

func (c *Client) httpEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := c.Get(r.Context(), id); err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	since := r.Header.Get("Last-Event-ID")
	if q := r.URL.Query().Get("since"); q != "" {
		since = q
	}
	var from uint64
	if since != "" {
		n, err := strconv.ParseUint(since, 10, 64)
		if err != nil {
			writeErr(w, http.StatusBadRequest, fmt.Errorf("since/Last-Event-ID must be an event id, not %q", since))
			return
		}
		from = n
	}
	follow := r.URL.Query().Get("follow") != "0"
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	var mu sync.Mutex // events and pings write in turn
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(15 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-r.Context().Done():
				return
			case <-tick.C:
				mu.Lock()
				_, _ = io.WriteString(w, ": ping\n\n")
				_ = rc.Flush()
				mu.Unlock()
			}
		}
	}()
	_ = c.EventsSince(r.Context(), id, from, follow, func(e Event) error {
		mu.Lock()
		defer mu.Unlock()
		var err error
		if e.End != "" {
			t := e.Task
			if t == nil {
				t, _ = c.Get(r.Context(), id)
			}
			msg := ""
			if t != nil {
				msg = t.Error
			}
			data, _ := json.Marshal(map[string]string{"state": string(e.End), "error": msg})
			_, err = fmt.Fprintf(w, "id: %d\nevent: task_end\ndata: %s\n\n", e.Seq, data)
		} else {
			var head struct {
				Event string `json:"event"`
			}
			_ = json.Unmarshal(e.Line, &head)
			_, err = fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, head.Event, e.Line)
		}
		if err == nil {
			err = rc.Flush()
		}
		return err
	})
}
