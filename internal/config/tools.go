package config

import (
	"fmt"
	"slices"
)

// Tools is the [tools] table: names of built-in tools to add to and
// remove from the model's default set, before the --tools flag applies,
// and the size the MCP servers' tools may take in a request before they
// are found on demand with tool_search instead (bytes of names,
// descriptions and schemas; 0 sends them all).
//
//	[tools]
//	add = ["apply_patch"]
//	remove = ["multi_edit"]
//	search_budget = 8192
type Tools struct {
	Add, Remove []string
	// SearchBudget is nil when the table does not set it.
	SearchBudget *int
}

// Tools reads the [tools] table (the workspace file's keys over the
// user's). Whether the names exist is the engine's to check.
func (c *Config) Tools() (Tools, error) {
	var t Tools
	raw, ok := c.Raw["tools"]
	if !ok {
		return t, nil
	}
	table, ok := raw.(map[string]any)
	if !ok {
		return t, fmt.Errorf("config: tools must be a table ([tools] with add = [...], remove = [...])")
	}
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		var dst *[]string
		switch k {
		case "add":
			dst = &t.Add
		case "remove":
			dst = &t.Remove
		case "search_budget":
			n, ok := table[k].(int64)
			if !ok || n < 0 || n > 1<<30 {
				return Tools{}, fmt.Errorf("config: tools.search_budget must be a number of bytes (0 sends every tool), not %v", table[k])
			}
			b := int(n)
			t.SearchBudget = &b
			continue
		default:
			return Tools{}, fmt.Errorf("config: tools.%s is not a [tools] setting (add, remove, search_budget)", k)
		}
		list, ok := table[k].([]any)
		if !ok {
			return Tools{}, fmt.Errorf("config: tools.%s must be an array of tool names, e.g. [\"apply_patch\"]", k)
		}
		for _, v := range list {
			s, ok := v.(string)
			if !ok {
				return Tools{}, fmt.Errorf("config: tools.%s must hold tool names (strings), not %v", k, v)
			}
			*dst = append(*dst, s)
		}
	}
	return t, nil
}
