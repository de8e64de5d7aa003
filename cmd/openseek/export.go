package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/export"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/session"
)

func (c *cli) exportCmd() *cobra.Command {
	var (
		format, out string
		noRedact    bool
	)
	cmd := &cobra.Command{
		Use:   "export ID [--format md|html|jsonl] [-o FILE]",
		Short: "Write a session as a Markdown transcript, a self-contained HTML page or its raw log (offline)",
		Long: `Write a recorded session for sharing: --format md is a readable Markdown
transcript (prompts, answers, tool calls with their arguments, clipped
results, how each turn ended, the totals); html is the session viewer's
page as one self-contained file (style and script inlined, nothing fetched,
no server or token); jsonl is the session log itself, byte for byte.

Keys and secrets are redacted by default, in every format: the values of
the API keys this machine knows (environment, config files) and anything
shaped like a credential (sk-…, ghp_…, AKIA…, Bearer …) become
"[redacted secret]". --no-redact writes the session as recorded.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "md" && format != "html" && format != "jsonl" {
				return fmt.Errorf("--format must be md, html or jsonl, not %q", format)
			}
			store, err := c.store()
			if err != nil {
				return err
			}
			data, err := readLog(store, args[0])
			if err != nil {
				return err
			}
			if !noRedact {
				data = export.NewRedactor(c.knownSecrets()).Redact(data)
			}
			var b bytes.Buffer
			if format == "jsonl" {
				b.Write(data)
			} else {
				s, err := session.Parse(args[0], data)
				if err != nil {
					return err
				}
				if format == "md" {
					err = export.Markdown(&b, s)
				} else {
					err = exportHTML(&b, s)
				}
				if err != nil {
					return err
				}
			}
			return c.writeOut(out, b.Bytes())
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "md", "md, html or jsonl")
	f.StringVarP(&out, "output", "o", "", "write to FILE instead of standard output")
	f.BoolVar(&noRedact, "no-redact", false, "keep keys and secrets as recorded")
	return cmd
}

// readLog is the bytes of session id's log, with an error a user can act
// on for an id that is not a session of the workspace.
func readLog(store *session.Store, id string) ([]byte, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, err
	}
	if !store.Exists(id) {
		return nil, fmt.Errorf("session %s does not exist in %s; `openseek sessions list` shows the sessions", id, store.Root())
	}
	data, err := os.ReadFile(store.Path(id))
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	return data, nil
}

// knownSecrets are the keys this machine holds, as the engine withholds
// them from commands: secret-looking variables, the configured providers'
// key variables, keys written in config files and --api-key.
func (c *cli) knownSecrets() *sandbox.Secrets {
	var names, values []string
	if c.g.apiKey != "" {
		values = append(values, c.g.apiKey)
	}
	if dir, _, err := prepareDir(c.g.dir); err == nil {
		if cfg, err := config.Load(c.getenv("HOME"), dir, c.getenv); err == nil {
			names = cfg.KeyVariables()
			values = append(values, cfg.LiteralKeys()...)
		}
	}
	for _, n := range names {
		if v := c.getenv(n); v != "" {
			values = append(values, v)
		}
	}
	return sandbox.SecretsFromEnv(os.Environ(), names, values)
}

// writeOut writes data to the file out, or to standard output for "".
func (c *cli) writeOut(out string, data []byte) error {
	var w io.Writer = c.stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return fmt.Errorf("-o: %w", err)
		}
		defer f.Close()
		w = f
		if _, err := w.Write(data); err != nil {
			return fmt.Errorf("-o %s: %w", out, err)
		}
		return f.Close()
	}
	_, err := w.Write(data)
	return err
}
