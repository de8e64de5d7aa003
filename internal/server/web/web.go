// Package web serves OpenSeek's web app and session viewer: pages over a
// workspace host, mounted by the HTTP server at "/" (behind its token
// check). With ReadOnly it is the viewer of `openseek inspect`: no prompt
// box, no commands.
package web

import (
	"html/template"
	"net/http"

	"github.com/openseek/openseek/internal/engine"
)

// Options configure the pages.
type Options struct {
	ReadOnly bool // the session viewer: nothing that changes a session
}

var index = template.Must(template.New("index").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>OpenSeek</title></head>
<body><h1>Sessions</h1><ul>{{range .}}<li><a href="/sessions/{{.ID}}">{{.ID}}</a>{{with .Title}} {{.}}{{end}}</li>{{end}}</ul></body></html>`))

// New returns the handler of the pages over h.
func New(h *engine.Host, o Options) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		rows, err := h.SessionInfos()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = index.Execute(w, rows)
	})
	return mux
}
