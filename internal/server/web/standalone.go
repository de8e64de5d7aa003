package web

import (
	"html/template"
	"io"

	"github.com/openseek/openseek/internal/session"
)

// Standalone writes the viewer's page of s (openseek inspect's, read-only)
// as one self-contained HTML file, for `openseek export --format html`:
// the style sheet and script are inlined, and a Content-Security-Policy
// forbids every request, so the page opens from a file with no server, no
// token and nothing fetched. Links to other sessions are not followed.
func Standalone(w io.Writer, s *session.Session) error {
	css, err := staticFS.ReadFile("static/app.css")
	if err != nil {
		return err
	}
	js, err := staticFS.ReadFile("static/app.js")
	if err != nil {
		return err
	}
	t, err := template.New("standalone.html").
		ParseFS(templateFS, "templates/standalone.html", "templates/session.html")
	if err != nil {
		return err
	}
	p := sessionPage{chrome: chrome{ReadOnly: true}, ID: s.ID, Title: s.ID, Parent: parentOf(s.ID)}
	p.fill(s)
	p.Steps, p.Timeline, p.Compacted = steps(s), timeline(s), compactions(s)
	return t.Execute(w, struct {
		sessionPage
		CSS template.CSS
		JS  template.JS
	}{p, template.CSS(css), template.JS(js)})
}
