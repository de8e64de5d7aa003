package config

// TUI is the [tui] table: how the terminal UI behaves.
//
//	[tui]
//	bell = false    # no BEL when a turn ends or an approval waits (default: ring)
//	inline = true   # draw in the terminal's scrollback instead of the full screen
type TUI struct {
	Bell   bool
	Inline bool
}

// TUI reads [tui]; the workspace's file wins over the user's, key by key.
func (c *Config) TUI() (TUI, error) {
	var t struct {
		Bell   *bool `toml:"bell"`
		Inline bool  `toml:"inline"`
	}
	if err := c.Section("tui", &t); err != nil {
		return TUI{}, err
	}
	out := TUI{Bell: true, Inline: t.Inline}
	if t.Bell != nil {
		out.Bell = *t.Bell
	}
	return out, nil
}
