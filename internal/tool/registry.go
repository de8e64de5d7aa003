package tool

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Spec is what the model is told about a tool: its name, description and
// argument schema. The agent converts it to the provider's tool spec.
type Spec struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// Registry is a set of tools keyed by name. It is safe for concurrent use;
// Tools and Specs always come back sorted by name so that the tool block
// of a request is stable across turns.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
}

// NewRegistry returns a registry holding tools. A later tool with the name
// of an earlier one is dropped; use Add to learn about duplicates.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{tools: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		_ = r.Add(t)
	}
	return r
}

// Add registers t. It fails when t has no name, no executor, or a name
// already taken.
func (r *Registry) Add(t Tool) error {
	if strings.TrimSpace(t.Name) == "" {
		return fmt.Errorf("add tool: empty name")
	}
	if t.Run == nil {
		return fmt.Errorf("add tool %s: no Run function", t.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools == nil {
		r.tools = make(map[string]Tool)
	}
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("add tool %s: a tool with this name is already registered", t.Name)
	}
	r.tools[t.Name] = t
	return nil
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	if r == nil {
		return Tool{}, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Len reports how many tools r holds.
func (r *Registry) Len() int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tools)
}

// Tools returns every tool, sorted by name.
func (r *Registry) Tools() []Tool {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	out := make([]Tool, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t)
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Specs returns the model-facing spec of every tool, sorted by name.
func (r *Registry) Specs() []Spec {
	tools := r.Tools()
	out := make([]Spec, len(tools))
	for i, t := range tools {
		out[i] = Spec{Name: t.Name, Description: t.Description, Schema: t.Schema}
	}
	return out
}

// Without returns a new registry holding r's tools except the named ones
// (for example a sub-agent without "finish", or a turn without "goal").
// Later changes to either registry do not affect the other.
func (r *Registry) Without(names ...string) *Registry {
	out := &Registry{tools: make(map[string]Tool)}
	if r == nil {
		return out
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for name, t := range r.tools {
		if !slices.Contains(names, name) {
			out.tools[name] = t
		}
	}
	return out
}
