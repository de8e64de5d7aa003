package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
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
			data, err := engine.ReadLog(store, args[0])
			if err != nil {
				return err
			}
			if !noRedact {
				data = engine.RedactKeys(data, c.keySources())
			}
			var b bytes.Buffer
			if format == "jsonl" {
				b.Write(data)
			} else {
				s, err := engine.ParseLog(args[0], data)
				if err != nil {
					return err
				}
				if format == "md" {
					err = engine.WriteMarkdown(&b, s)
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

// keySources are where the keys this machine holds are found: the
// environment, the workspace's and the user's config files, --api-key.
func (c *cli) keySources() engine.KeySources {
	k := engine.KeySources{Getenv: c.getenv, APIKey: c.g.apiKey}
	if dir, _, err := prepareDir(c.g.dir); err == nil {
		k.Dir = dir
	}
	return k
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
