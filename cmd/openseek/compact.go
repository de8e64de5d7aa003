package main

import (
	"errors"
	"fmt"
	"os"

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
			var text []byte
			if file != "" {
				if text, err = os.ReadFile(file); err != nil {
					return fmt.Errorf("--file: %w", err)
				}
				if from == 0 || to == 0 {
					return errors.New("--file needs --from and --to: the range of events the summary covers")
				}
			} else if from != 0 || to != 0 {
				return errors.New("--from and --to go with --file; without it the model summarises the whole session")
			}
			host, err := c.newHost(cmd, "", "")
			if err != nil {
				return err
			}
			defer host.Close()
			const holder = "openseek sessions compact"
			var done engine.Compacted
			if file != "" {
				done, err = host.CompactText(id, holder, string(text), from, to)
			} else {
				done, err = host.Compact(cmd.Context(), id, holder)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "compacted session %s events %d..%d; last_sequence=%d\n", id, done.From, done.To, done.Last)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&file, "file", "", "use this file's text as the summary")
	f.IntVar(&from, "from", 0, "first event the summary covers (with --file)")
	f.IntVar(&to, "to", 0, "last event the summary covers (with --file)")
	return cmd
}
