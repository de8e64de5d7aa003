package config

import "slices"

// KeyVariables are the environment variables that hold a key for any
// provider, built in or configured, sorted and without repeats: they are
// secrets even when their names do not look like one.
func (c *Config) KeyVariables() []string {
	var out []string
	for _, p := range c.Providers {
		out = append(out, p.APIKeyEnv...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LiteralKeys are the keys written into config files (api_key).
func (c *Config) LiteralKeys() []string {
	var out []string
	for _, p := range c.Providers {
		if p.APIKey != "" {
			out = append(out, p.APIKey)
		}
	}
	slices.Sort(out)
	return out
}
