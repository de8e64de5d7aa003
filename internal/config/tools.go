package config

import (
	"fmt"
	"slices"
)

// Tools is the [tools] table: names of built-in tools to add to and
// remove from the model's default set, before the --tools flag applies.
//
//	[tools]
//	add = ["apply_patch"]
//	remove = ["multi_edit"]
type Tools struct {
	Add, Remove []string
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
		default:
			return Tools{}, fmt.Errorf("config: tools.%s is not a [tools] setting (add, remove)", k)
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
