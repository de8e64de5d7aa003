// Package agents loads custom agents: Markdown files whose front matter
// names a child agent the model may delegate to and whose body is that
// child's instructions.
//
//	---
//	name: reviewer
//	description: Reviews a diff for bugs; use after a change.
//	tools: read, grep, shell      # or a YAML list; omitted = all tools
//	model: deepseek-chat          # omitted or "inherit" = the parent's model
//	run: process                  # omitted or "in-process" = a child in this process;
//	                              # process = an `openseek subrun general` child process
//	---
//	You review code. …
//
// Files are <workspace>/.openseek/agents/<name>.md and <global>/<name>.md
// (~/.openseek/agents). Key invariants: Load returns agents sorted by name,
// one per name, a workspace agent shadowing a global one; an agent naming a
// tool that does not exist is not loaded, and the error names the file and
// the tool, so a typo shows up when the session starts rather than when
// the child runs; every other bad file is reported by path and the rest
// still load.
package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/openseek/openseek/internal/skills"
)

// Agent is one custom agent. Tools nil means every tool the parent has;
// Model "" means the parent's model.
type Agent struct {
	Name, Description, Model, Prompt, Path string
	Tools                                  []string
	// Process runs the child as an `openseek subrun general` process
	// instead of inside the parent's process (front matter run: process).
	Process bool
}

type meta struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Model       string `yaml:"model"`
	Tools       any    `yaml:"tools"` // "a, b" (Claude Code's form) or [a, b]
	Run         string `yaml:"run"`   // "in-process" (default) or "process"
}

// Load reads the agents of workspace (may be "") and of globalDir (may be
// ""), checking their tools against knownTools.
func Load(workspace, globalDir string, knownTools []string) ([]Agent, []error) {
	var dirs []string
	if workspace != "" {
		dirs = append(dirs, filepath.Join(workspace, ".openseek", "agents"))
	}
	if globalDir != "" {
		dirs = append(dirs, globalDir)
	}
	known := make(map[string]bool, len(knownTools))
	for _, n := range knownTools {
		known[n] = true
	}
	var (
		errs   []error
		byName = map[string]Agent{}
	)
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("agents directory %s: %w", dir, err))
			}
			continue
		}
		here := map[string]string{}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") {
				continue
			}
			path := filepath.Join(dir, name)
			if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
				continue
			}
			a, err := load(path, known)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if prev, dup := here[a.Name]; dup {
				errs = append(errs, fmt.Errorf("agent %s: %s: the name is already used by %s, which is kept", a.Name, path, prev))
				continue
			}
			here[a.Name] = path
			if _, shadowed := byName[a.Name]; !shadowed {
				byName[a.Name] = a
			}
		}
	}
	out := make([]Agent, 0, len(byName))
	for _, a := range byName {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

// load reads one agent file.
func load(path string, known map[string]bool) (Agent, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Agent{}, fmt.Errorf("agent %s: %w", path, err)
	}
	var m meta
	body, err := skills.FrontMatter(data, &m)
	if err != nil {
		return Agent{}, fmt.Errorf("agent %s: %w", path, err)
	}
	a := Agent{
		Name:        strings.TrimSpace(m.Name),
		Description: strings.Join(strings.Fields(m.Description), " "),
		Model:       strings.TrimSpace(m.Model),
		Prompt:      strings.TrimSpace(body),
		Path:        path,
	}
	if a.Name == "" {
		a.Name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	if strings.ContainsAny(a.Name, " \t\r\n") {
		return Agent{}, fmt.Errorf("agent %s: name %q must be one word", path, a.Name)
	}
	if a.Description == "" {
		return Agent{}, fmt.Errorf("agent %s: front matter has no description (the model needs it to know when to use the agent)", path)
	}
	if a.Prompt == "" {
		return Agent{}, fmt.Errorf("agent %s: no instructions (the body after the front matter is empty)", path)
	}
	if a.Model == "inherit" {
		a.Model = ""
	}
	switch strings.TrimSpace(m.Run) {
	case "", "in-process":
	case "process":
		a.Process = true
	default:
		return Agent{}, fmt.Errorf("agent %s: run must be in-process or process, not %q", path, m.Run)
	}
	tools, err := toolList(m.Tools)
	if err != nil {
		return Agent{}, fmt.Errorf("agent %s: tools: %w", path, err)
	}
	for _, t := range tools {
		if !known[t] {
			return Agent{}, fmt.Errorf("agent %s (%s): unknown tool %q; known tools: %s", a.Name, path, t, list(known))
		}
	}
	a.Tools = tools
	return a, nil
}

// toolList reads the tools key: a comma-separated string or a list of
// strings, de-duplicated in order. Absent or empty means nil (all tools).
func toolList(v any) ([]string, error) {
	var raw []string
	switch v := v.(type) {
	case nil:
	case string:
		raw = strings.Split(v, ",")
	case []any:
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("want tool names, got %v", x)
			}
			raw = append(raw, s)
		}
	default:
		return nil, fmt.Errorf("want a list of tool names or a comma-separated string, got %v", v)
	}
	var out []string
	for _, s := range raw {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// list names the tools of set, sorted, abbreviated when there are many
// (MCP servers can add hundreds).
func list(set map[string]bool) string {
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	const max = 40
	if len(names) > max {
		return strings.Join(names[:max], ", ") + fmt.Sprintf(", … (%d more)", len(names)-max)
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
