package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
)

// compactCmd is `sessions compact <id>`: append a summary covering a
// range of the session, from a file or made by the model.
func (c *cli) compactCmd() *cobra.Command {
	var file string
	var from, to int
	cmd := &cobra.Command{
		Use:   "compact <id> [--file F --from N --to M]",
		Short: "Append a summary to a session: the text of --file for events N..M, or one the model writes for the whole session",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			store, err := c.store()
			if err != nil {
				return err
			}
			if !store.Exists(id) {
				return fmt.Errorf("session %s does not exist in %s", id, store.Root())
			}
			if file != "" {
				text, err := os.ReadFile(file)
				if err != nil {
					return fmt.Errorf("--file: %w", err)
				}
				if from == 0 || to == 0 {
					return errors.New("--file needs --from and --to: the range of events the summary covers")
				}
				w, err := store.OpenWriter(id, "", "openseek sessions compact")
				if err != nil {
					return err
				}
				defer w.Close()
				if _, err := w.Compact(string(text), from, to); err != nil {
					return err
				}
				fmt.Fprintf(c.stdout, "compacted session %s events %d..%d; last_sequence=%d\n", id, from, to, w.Session().LastSequence())
				return nil
			}
			if from != 0 || to != 0 {
				return errors.New("--from and --to go with --file; without it the model summarises the whole session")
			}
			opts, err := c.engineOptions(cmd, "", "")
			if err != nil {
				return err
			}
			opts.Dir = filepath.Dir(store.Root())
			if filepath.IsAbs(c.g.sessionRoot) {
				opts.Dir, _ = filepath.Abs(c.g.dir)
			}
			opts.SessionRoot, opts.SessionID, opts.Holder = store.Root(), id, "openseek sessions compact"
			eng, err := engine.New(opts)
			if err != nil {
				return err
			}
			defer eng.Close()
			covered := eng.Session().LastSequence()
			if err := eng.Compact(cmd.Context()); err != nil {
				return fmt.Errorf("compaction failed, the session is unchanged: %w", err)
			}
			fmt.Fprintf(c.stdout, "compacted session %s events 1..%d; last_sequence=%d\n", id, covered, eng.Session().LastSequence())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&file, "file", "", "use this file's text as the summary")
	f.IntVar(&from, "from", 0, "first event the summary covers (with --file)")
	f.IntVar(&to, "to", 0, "last event the summary covers (with --file)")
	return cmd
}
