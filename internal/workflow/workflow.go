// Package workflow runs workflows: Starlark programs that call the
// session's tools (as the script tool does, through the same dispatch as
// the model's calls) and run agents as sub-runs. A workflow run is a
// session of its own, opened on the engine.Host, whose one turn the
// program drives (engine.Session.Program); each agent(...) is a session
// named "<run>-sr-N", announced on the run's event stream
// (subrun_started / subrun_finished), so every face shows the run live and
// lists the agents' sessions as its children.
//
// Workflows come from three places, the first that names one wins: the
// project's .openseek/workflows/NAME.star (only once the user trusted the
// file: it runs commands), the user's ~/.openseek/workflows/NAME.star and
// the bundled ones embedded in the binary (review, check, fix-tests).
//
// Invariants:
//   - A workflow can do nothing the model could not: its tool calls take
//     the model's path (policy, approval, hooks, sandbox, recording) and
//     agents run as ordinary sessions of the same host.
//   - Every run is bounded (script.Limits) and ends with a recorded
//     terminal: an error, a runaway loop or a cancelled run fails the
//     turn with a message naming the workflow's line.
package workflow

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openseek/openseek/internal/trust"
)

//go:embed bundled/*.star
var bundled embed.FS

// Workflow is one workflow's source.
type Workflow struct {
	Name   string
	Origin string // "bundled", "project", "user" or "file"
	Path   string // the file it was read from ("bundled/NAME.star" for a bundled one)
	Doc    string // its first comment line
	Code   string
	// Untrusted marks a project workflow the user has not trusted (as
	// it is now): it is listed but does not run.
	Untrusted bool
}

// Places say where workflows are looked up.
type Places struct {
	Workspace string // the project: <Workspace>/.openseek/workflows
	Home      string // the user: <Home>/.openseek/workflows; its trust record
	// TrustWorkspace trusts the project's workflows unasked
	// (--trust-workspace).
	TrustWorkspace bool
}

func (p Places) projectDir() string { return filepath.Join(p.Workspace, ".openseek", "workflows") }
func (p Places) userDir() string    { return filepath.Join(p.Home, ".openseek", "workflows") }

// List is every workflow by name: the project's, the user's and the
// bundled ones, a name shadowed by an earlier place left out.
func List(p Places) ([]Workflow, error) {
	seen := map[string]bool{}
	var all []Workflow
	add := func(ws []Workflow) {
		for _, w := range ws {
			if !seen[w.Name] {
				seen[w.Name] = true
				all = append(all, w)
			}
		}
	}
	for _, origin := range []string{"project", "user", "bundled"} {
		ws, err := p.dir(origin)
		if err != nil {
			return nil, err
		}
		add(ws)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all, nil
}

// Find is the workflow NAME, or the file NAME when it ends in .star.
func Find(p Places, name string) (Workflow, error) {
	if strings.HasSuffix(name, ".star") {
		data, err := os.ReadFile(name)
		if err != nil {
			return Workflow{}, fmt.Errorf("read workflow: %w", err)
		}
		base := strings.TrimSuffix(filepath.Base(name), ".star")
		return Workflow{Name: base, Origin: "file", Path: name, Code: string(data), Doc: docOf(string(data))}, nil
	}
	all, err := List(p)
	if err != nil {
		return Workflow{}, err
	}
	var names []string
	for _, w := range all {
		if w.Name == name {
			if w.Untrusted {
				return Workflow{}, fmt.Errorf("workflow %s (%s) is not trusted: it runs commands with your rights; read it, then `openseek trust %s`", name, w.Path, w.Path)
			}
			return w, nil
		}
		names = append(names, w.Name)
	}
	return Workflow{}, fmt.Errorf("no workflow named %q; known: %s (or give a FILE.star)", name, strings.Join(names, ", "))
}

// dir reads the workflows of one place.
func (p Places) dir(origin string) ([]Workflow, error) {
	var fsys fs.FS
	var root string
	switch origin {
	case "bundled":
		fsys, root = bundled, "bundled"
	case "project":
		fsys, root = os.DirFS(p.projectDir()), "."
	case "user":
		if p.Home == "" {
			return nil, nil
		}
		fsys, root = os.DirFS(p.userDir()), "."
	}
	entries, err := fs.ReadDir(fsys, root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s workflows: %w", origin, err)
	}
	var store *trust.Store
	if origin == "project" && !p.TrustWorkspace {
		store = trust.Open(p.Home)
	}
	var out []Workflow
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".star")
		if !ok || e.IsDir() {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(root, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read workflow %s: %w", e.Name(), err)
		}
		w := Workflow{Name: name, Origin: origin, Code: string(data), Doc: docOf(string(data))}
		switch origin {
		case "bundled":
			w.Path = "bundled/" + e.Name()
		case "project":
			w.Path = filepath.Join(p.projectDir(), e.Name())
			w.Untrusted = store != nil && !store.TrustedData(w.Path, data)
		case "user":
			w.Path = filepath.Join(p.userDir(), e.Name())
		}
		out = append(out, w)
	}
	return out, nil
}

// docOf is the first line of a workflow's leading comment.
func docOf(code string) string {
	for _, line := range strings.Split(code, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#") {
			return ""
		}
		if d := strings.TrimSpace(strings.TrimLeft(line, "#")); d != "" {
			return d
		}
	}
	return ""
}
