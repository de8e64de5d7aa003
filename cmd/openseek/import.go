package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/importer"
	"github.com/openseek/openseek/internal/prompt"
	"github.com/openseek/openseek/internal/session"
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
			if len(args) == 0 || (args[0] != importer.Codex && args[0] != importer.Claude) {
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
				p, err := importer.Latest(source, c.getenv)
				if err != nil {
					return err
				}
				path = p
			} else {
				path = args[1]
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			t, err := importer.Import(source, f, path)
			f.Close()
			if err != nil {
				return err
			}
			for _, w := range t.Warnings {
				fmt.Fprintf(c.stderr, "warning: %s\n", w)
			}
			id, err := c.writeImported(t)
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

// writeImported appends t's items to a new session (--session, or a fresh
// <source>-<time> id) whose system prompt is the one a new session of
// this workspace gets.
func (c *cli) writeImported(t *importer.Transcript) (string, error) {
	store, err := c.store()
	if err != nil {
		return "", err
	}
	id := c.g.session
	if id == "" {
		id = session.NewID(t.Source, time.Now())
	}
	if store.Exists(id) {
		return "", fmt.Errorf("session %s already exists: import makes a new session; choose another --session", id)
	}
	dir, _, err := prepareDir(c.g.dir)
	if err != nil {
		return "", err
	}
	memory, _ := prompt.Memory(c.getenv("HOME"), dir, dir, prompt.DefaultMemoryBytes)
	sys := prompt.Build(prompt.Options{Workspace: dir, OS: runtime.GOOS, Shell: "bash", Memory: memory})
	w, err := store.OpenWriter(id, sys, "openseek import")
	if err != nil {
		return "", err
	}
	defer w.Close()
	if _, err := w.AppendAll(t.Items...); err != nil {
		return "", fmt.Errorf("write session %s: %w", id, err)
	}
	return id, nil
}
