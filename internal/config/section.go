package config

import (
	"bytes"
	"fmt"

	"github.com/BurntSushi/toml"
)

// Section decodes the top-level table name — the workspace's keys over
// the user's, less what the loader held back (Held) — into dst, a struct
// with toml tags. A missing table leaves dst as it is. Readers of a table
// go through here rather than reading the files, so that what a
// repository may set is decided in one place.
func (c *Config) Section(name string, dst any) error {
	raw, ok := c.Raw[name]
	if !ok {
		return nil
	}
	t, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("config: %s must be a table ([%s])", name, name)
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(t); err != nil {
		return fmt.Errorf("config: [%s]: %w", name, err)
	}
	md, err := toml.Decode(buf.String(), dst)
	if err != nil {
		return fmt.Errorf("config: [%s]: %w", name, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return fmt.Errorf("config: %s.%s is not a [%s] setting", name, un[0], name)
	}
	return nil
}
