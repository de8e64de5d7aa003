package engine

import (
	"io"
	"os"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/export"
	"github.com/openseek/openseek/internal/sandbox"
)

// KeySources are where the keys a machine holds are found, for
// RedactKeys.
type KeySources struct {
	Getenv func(string) string
	// Dir is the workspace whose config files (and the user's) name key
	// variables and hold literal keys; "" reads no config file.
	Dir string
	// APIKey is a key given on the command line.
	APIKey string
}

// RedactKeys replaces in data the keys this machine holds, as the engine
// withholds them from commands — secret-looking environment variables,
// the configured providers' key variables, keys written in config files
// and the command line's key — and anything shaped like a credential.
func RedactKeys(data []byte, k KeySources) []byte {
	var names, values []string
	if k.APIKey != "" {
		values = append(values, k.APIKey)
	}
	if k.Dir != "" {
		if cfg, err := config.Load(k.Getenv("HOME"), k.Dir, k.Getenv); err == nil {
			names = cfg.KeyVariables()
			values = append(values, cfg.LiteralKeys()...)
		}
	}
	for _, n := range names {
		if v := k.Getenv(n); v != "" {
			values = append(values, v)
		}
	}
	return export.NewRedactor(sandbox.SecretsFromEnv(os.Environ(), names, values)).Redact(data)
}

// WriteMarkdown writes s as a readable Markdown transcript.
func WriteMarkdown(w io.Writer, s *Log) error { return export.Markdown(w, s) }
