package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/openseek/openseek/internal/engine"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/render"
)

func (c *cli) sessionsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, search and fork durable sessions (offline; no key needed)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected value '%s' found; no more were expected", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("the following required argument was not provided: 'list | show | search | fork'")
		},
	}
	var format string
	var all bool
	list := &cobra.Command{
		Use:   "list",
		Short: "One line per session, most recently active first (id, last activity, title); review runs with --all",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := c.store()
			if err != nil {
				return err
			}
			ls, err := store.List()
			if err != nil {
				return err
			}
			switch format {
			case "json":
				host, err := c.newHost(cmd, "", "")
				if err != nil {
					return err
				}
				defer host.Close()
				rows, err := host.SessionInfos()
				if err != nil {
					return err
				}
				if !all {
					rows = slices.DeleteFunc(rows, func(r engine.SessionInfo) bool { return r.Review })
				}
				data, _ := json.Marshal(rows)
				fmt.Fprintln(c.stdout, string(data))
			case "", "text":
				for _, l := range ls {
					if !all && engine.IsReviewSession(l.ID) {
						continue
					}
					when := "-"
					if l.HasTime {
						when = l.UpdatedAt.Local().Format(time.DateTime)
					}
					title := l.Title
					if title == "" {
						title = l.FirstPrompt
					}
					title = oneLine(title, 80)
					if l.HasTime {
						if _, err := store.Load(l.ID); err != nil {
							title = "[corrupt: run `openseek sessions repair " + l.ID + "`] " + title
							fmt.Fprintf(c.stderr, "warning: %v\n", err)
						}
					}
					fmt.Fprintf(c.stdout, "%s\t%s\t%s\n", l.ID, when, title)
				}
			default:
				return fmt.Errorf("--format must be text or json, not %q", format)
			}
			return nil
		},
	}
	list.Flags().StringVar(&format, "format", "", "text or json")
	list.Flags().BoolVar(&all, "all", false, "list review runs too")
	var showFormat string
	show := &cobra.Command{
		Use:   "show <id>",
		Short: "Print a session: one JSON line (header and every event), or --format text for a readable transcript",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := c.store()
			if err != nil {
				return err
			}
			s, err := store.Load(args[0])
			if err != nil {
				return err
			}
			switch showFormat {
			case "", "json":
				fmt.Fprintln(c.stdout, string(s.MarshalSnapshot()))
			case "text":
				render.Transcript(c.stdout, s, engine.SubSessions(store, s.ID)...)
			default:
				return fmt.Errorf("--format must be json or text, not %q", showFormat)
			}
			return nil
		},
	}
	show.Flags().StringVar(&showFormat, "format", "", "json (default) or text")
	repair := &cobra.Command{
		Use:   "repair <id>",
		Short: "Make a corrupt session load again: keep the events that load, set the original file aside (nothing is deleted)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := c.store()
			if err != nil {
				return err
			}
			r, err := store.Repair(args[0])
			if err != nil {
				return err
			}
			if r.Aside == "" {
				fmt.Fprintf(c.stdout, "session %s loads as it is (%d events); nothing to repair\n", args[0], r.Kept)
				return nil
			}
			fmt.Fprintf(c.stdout, "session %s repaired: %d events kept; the original file is at %s\n", args[0], r.Kept, r.Aside)
			return nil
		},
	}
	cmd.AddCommand(list, show, repair, c.compactCmd(), c.sessionsSearchCmd(), c.sessionsForkCmd())
	for _, sub := range cmd.Commands() {
		sub.SetFlagErrorFunc(flagError)
	}
	return cmd
}

// store opens the session store of --dir / --session-root.
func (c *cli) store() (*engine.Store, error) {
	dir, _, err := prepareDir(c.g.dir)
	if err != nil {
		return nil, err
	}
	root := c.g.sessionRoot
	if !filepath.IsAbs(root) {
		root = filepath.Join(dir, root)
	}
	return engine.OpenStore(root), nil
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
