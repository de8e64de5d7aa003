package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
)

// importCmd is `import codex|claude [FILE | --latest]`: another agent's
// transcript becomes a session of this workspace, continued like any
// other with run --session.
func (c *cli) importCmd() *cobra.Command {
	var latest bool
	cmd := &cobra.Command{
		Use:   "import codex|claude [FILE | --latest]",
		Short: "Make a Codex CLI rollout or a Claude Code transcript a session of this workspace and print its id",
		Long: `Import turns another coding agent's transcript into an OpenSeek session of
this workspace and prints the new session's id; continue it with
openseek run --session ID "…". Messages, reasoning summaries, tool calls and
their results come across; calls of tools OpenSeek has (shell, read, edit,
write, apply_patch) are mapped onto them, the others are kept as they were.

  openseek import codex ~/.codex/sessions/2025/06/01/rollout-….jsonl
  openseek import claude --latest       the newest ~/.claude/projects/*/*.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || !engine.IsImportSource(args[0]) {
				return errors.New("name the transcript's source: openseek import codex|claude [FILE | --latest]")
			}
			switch {
			case len(args) > 2:
				return fmt.Errorf("unexpected value '%s': import reads one transcript", args[2])
			case latest && len(args) == 2:
				return errors.New("give a FILE or --latest, not both")
			case !latest && len(args) == 1:
				return errors.New("give the transcript FILE, or --latest for the newest one")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			source := args[0]
			var path string
			if latest {
				p, err := engine.LatestTranscript(source, c.getenv)
				if err != nil {
					return err
				}
				path = p
			} else {
				path = args[1]
			}
			t, err := engine.ReadTranscript(source, path)
			if err != nil {
				return err
			}
			for _, w := range t.Warnings {
				fmt.Fprintf(c.stderr, "warning: %s\n", w)
			}
			id, err := c.writeImported(cmd, t)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, id)
			return nil
		},
	}
	cmd.Flags().BoolVar(&latest, "latest", false, "import the newest transcript of that source under your home (by modification time)")
	return cmd
}

// writeImported appends t's items to a new session of the workspace
// (Host.Import), named by --session or a fresh <source>-<time> id.
func (c *cli) writeImported(cmd *cobra.Command, t *engine.Transcript) (string, error) {
	if _, _, err := prepareDir(c.g.dir); err != nil {
		return "", err
	}
	host, err := c.newHost(cmd, "", "")
	if err != nil {
		return "", err
	}
	defer host.Close()
	return host.Import(t, c.g.session)
}
