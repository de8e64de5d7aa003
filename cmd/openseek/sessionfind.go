package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
)

// searchHit is a search hit as `sessions search --json` prints it.
type searchHit struct {
	engine.SearchHit
	Workspace string `json:"workspace"`
}

func (c *cli) sessionsSearchCmd() *cobra.Command {
	var (
		asJSON bool
		limit  int
	)
	cmd := &cobra.Command{
		Use:   "search TEXT",
		Short: "Find TEXT (any case) in every session's prompts, answers, tool calls and results: session, workspace, date, turn and the text around it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, _, err := prepareDir(c.g.dir)
			if err != nil {
				return err
			}
			store, err := c.store()
			if err != nil {
				return err
			}
			hits, skipped, err := store.Search(cmd.Context(), args[0], limit)
			if err != nil {
				return err
			}
			for _, err := range skipped {
				fmt.Fprintf(c.stderr, "warning: %v\n", err)
			}
			if asJSON {
				out := make([]searchHit, len(hits))
				for i, h := range hits {
					out[i] = searchHit{h, dir}
				}
				data, _ := json.Marshal(out)
				fmt.Fprintln(c.stdout, string(data))
				return nil
			}
			if len(hits) == 0 {
				fmt.Fprintf(c.stderr, "no session mentions %q\n", args[0])
				return nil
			}
			on, off := "»", "«"
			if isTerminal(c.stdout) && c.getenv("NO_COLOR") == "" {
				on, off = "\x1b[1;7m", "\x1b[0m"
			}
			for _, h := range hits {
				when := time.UnixMilli(h.UpdatedAtMS)
				if h.TS > 0 {
					when = time.UnixMilli(h.TS)
				}
				fmt.Fprintf(c.stdout, "%s\t%s\t%s\tturn %d\t#%d %s\n", h.Session, dir, when.Local().Format(time.DateTime), h.Turn, h.Sequence, h.Kind)
				e := h.Excerpt
				fmt.Fprintf(c.stdout, "    %s%s%s%s%s\n", e[:h.Match[0]], on, e[h.Match[0]:h.Match[1]], off, e[h.Match[1]:])
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the hits as one JSON array")
	cmd.Flags().IntVar(&limit, "limit", 5, "at most this many hits a session; 0 = all")
	return cmd
}

func (c *cli) sessionsForkCmd() *cobra.Command {
	var (
		at     int
		as     string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "fork ID [--at SEQ] [--as NEWID]",
		Short: "Start a new session from a point of session ID: its events up to SEQ (default: all), linked to ID; the workspace's files are not touched",
		Long: `Start a new session from any point of session ID: the new session holds
ID's events 1..SEQ (the sequence numbers 'sessions show' and 'sessions
search' print; default: all of them), byte for byte, and a marker naming ID
and SEQ. 'run --session NEWID "…"' continues the conversation from there;
ID is not changed. NEWID defaults to fork-<time>.

The workspace's files are not touched: a fork goes back in the
conversation, not on disk. To put the files back as they were before one
of the fork's turns too, run 'openseek rewind NEWID --turn N' (the fork
keeps the parent's snapshots).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := c.store()
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("at") {
				s, err := store.Load(args[0])
				if err != nil {
					return err
				}
				at = s.LastSequence()
			}
			if as == "" {
				as = engine.NewSessionID("fork", time.Now())
			}
			if _, err := store.Fork(args[0], at, as); err != nil {
				return err
			}
			if asJSON {
				data, _ := json.Marshal(map[string]any{"session": as, "parent": args[0], "at": at})
				fmt.Fprintln(c.stdout, string(data))
				return nil
			}
			fmt.Fprintf(c.stdout, "%s\n", as)
			fmt.Fprintf(c.stderr, "forked %s at event %d; continue it with: openseek run --session %s \"…\"\n", args[0], at, as)
			return nil
		},
	}
	cmd.Flags().IntVar(&at, "at", 0, "the last event (sequence) of ID the fork keeps; default: all")
	cmd.Flags().StringVar(&as, "as", "", "the new session's id (default fork-<time>)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"session","parent","at"} as JSON`)
	return cmd
}
