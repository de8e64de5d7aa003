package runtime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/script"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/internal/tool/control"
	"github.com/openseek/openseek/internal/tool/fs"
	"github.com/openseek/openseek/internal/tool/search"
	"github.com/openseek/openseek/internal/tool/shell"
)

// builtinTools is the set of built-in tools the model gets: the default
// set for the model (apply_patch instead of edit and multi_edit for the
// models trained on it), then the config's [tools] table, then --tools
// (spec). Unknown names are an error that lists the known ones.
func (e *Engine) builtinTools(model, spec string) ([]tool.Tool, error) {
	pool := slices.Concat(fs.Tools(), []tool.Tool{fs.ApplyPatch()}, search.Tools(), shell.Tools(), control.Tools(),
		[]tool.Tool{script.Tool(script.DefaultLimits)})
	on := map[string]bool{}
	for _, t := range pool {
		on[t.Name] = t.Name != "apply_patch"
	}
	if patchNative(model) {
		on["apply_patch"], on["edit"], on["multi_edit"] = true, false, false
	}
	known := func(name, from string) error {
		if _, ok := on[name]; ok {
			return nil
		}
		names := make([]string, 0, len(on))
		for n := range on {
			names = append(names, n)
		}
		slices.Sort(names)
		return fmt.Errorf("%s: unknown tool %q; known tools: %s", from, name, strings.Join(names, ", "))
	}
	cfg := e.opts.Config
	table, err := cfg.Tools()
	if err != nil {
		return nil, err
	}
	for _, n := range table.Add {
		if err := known(n, "config [tools] add"); err != nil {
			return nil, err
		}
		on[n] = true
	}
	for _, n := range table.Remove {
		if err := known(n, "config [tools] remove"); err != nil {
			return nil, err
		}
		on[n] = false
	}
	changes, exact, err := parseToolSpec(spec)
	if err != nil {
		return nil, err
	}
	if exact {
		for n := range on {
			on[n] = false
		}
	}
	for _, c := range changes {
		if err := known(c.name, "--tools"); err != nil {
			return nil, err
		}
		on[c.name] = c.on
	}
	var out []tool.Tool
	for _, t := range pool {
		if on[t.Name] {
			out = append(out, t)
		}
	}
	return out, nil
}

// patchNative reports whether model was trained on apply_patch: OpenAI's
// GPT-5 family and the Codex models, by any provider's spelling
// ("openai/gpt-5.1-codex", "gpt-5-mini").
func patchNative(model string) bool {
	name := strings.ToLower(model[strings.LastIndex(model, "/")+1:])
	return strings.HasPrefix(name, "gpt-5") || strings.Contains(name, "codex")
}

type toolChange struct {
	name string
	on   bool
}

// parseToolSpec reads --tools: "+a,-b" adds and removes; a list without
// signs ("read,grep,finish") is the exact set.
func parseToolSpec(spec string) (changes []toolChange, exact bool, err error) {
	signed, bare := 0, 0
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		c := toolChange{name: item, on: true}
		switch item[0] {
		case '+':
			c.name, signed = strings.TrimSpace(item[1:]), signed+1
		case '-':
			c.name, c.on, signed = strings.TrimSpace(item[1:]), false, signed+1
		default:
			bare++
		}
		if c.name == "" {
			return nil, false, fmt.Errorf("--tools: %q names no tool; write +name to add, -name to remove", item)
		}
		changes = append(changes, c)
	}
	if signed > 0 && bare > 0 {
		return nil, false, fmt.Errorf("--tools %q mixes +/- changes with bare names; use +name,-name to change the default set, or bare names for an exact set", spec)
	}
	return changes, bare > 0, nil
}

// toolSearchBudget is the config's tools.search_budget, or the agent's
// default: how much the MCP tools may weigh before they are found on
// demand with tool_search instead of sent in every request.
func (e *Engine) toolSearchBudget() (int, error) {
	cfg := e.opts.Config
	table, err := cfg.Tools()
	if err != nil {
		return 0, err
	}
	if table.SearchBudget != nil {
		return *table.SearchBudget, nil
	}
	return agent.DefaultToolSearchBudget, nil
}

// isMCPTool picks the tools tool_search may defer: an MCP server's.
func isMCPTool(name string) bool { return strings.HasPrefix(name, "mcp__") }
