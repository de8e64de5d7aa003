package engine

import "github.com/openseek/openseek/internal/config"

// TUISettings are the terminal UI's settings ([tui] in config.toml).
type TUISettings = config.TUI

// MissingKeyError is ResolveModel's error when the model's provider has
// no key: what a first run's guided setup starts from.
type MissingKeyError = config.MissingKeyError

// UserConfigPath is the user's config file under home.
func UserConfigPath(home string) string {
	user, _ := config.Paths(home, "")
	return user
}

// SaveSetup stores a guided setup's choice (the key, or the command that
// prints it, and the model) in the user's config file, 0600.
func SaveSetup(home string, s config.Setup) error { return config.SaveSetup(home, s) }
