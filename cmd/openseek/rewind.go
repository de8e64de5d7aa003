package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
)

func (c *cli) rewindCmd() *cobra.Command {
	var (
		turn               int
		conversation, list bool
		format, snapshotID string
	)
	cmd := &cobra.Command{
		Use:   "rewind [SESSION] [--turn N] [--conversation]",
		Short: "Put the workspace's files back as they were before a turn (offline; no key needed)",
		Long: `Put the workspace's files back as they were before turn N of a session (turns
count from 1 in the session's order; default: the last turn): files changed
since are restored, files created since removed, files deleted since brought
back. Ignored files (.gitignore, .git/info/exclude) are left alone, and the
user's own git repository is never touched. The files as they were just
before the rewind are kept as a snapshot, so a rewind can be undone with
--snapshot.

With --conversation the conversation rewinds too: a marker appended to the
session log hides turn N and everything after it from the model when the
session is resumed. The log itself is never rewritten.

SESSION defaults to --session, else the workspace's most recent session.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return fmt.Errorf("--format must be text or json, not %q", format)
			}
			dir, _, err := prepareDir(c.g.dir)
			if err != nil {
				return err
			}
			id := c.g.session
			if len(args) == 1 {
				if id != "" && id != args[0] {
					return fmt.Errorf("SESSION %s contradicts --session %s; pick one session", args[0], id)
				}
				id = args[0]
			}
			switch {
			case snapshotID != "" && (cmd.Flags().Changed("turn") || conversation || list || id != ""):
				return errors.New("--snapshot restores one snapshot by id; it takes no session, --turn, --conversation or --list")
			case list && (cmd.Flags().Changed("turn") || conversation):
				return errors.New("--list only lists the turns; drop --turn and --conversation")
			case cmd.Flags().Changed("turn") && turn < 1:
				return fmt.Errorf("--turn counts from 1, not %d", turn)
			}
			if snapshotID != "" {
				res, err := engine.RestoreSnapshot(cmd.Context(), c.getenv("HOME"), dir, c.g.sessionRoot, snapshotID)
				if err != nil {
					return err
				}
				return c.printRewound(format, engine.Rewound{Files: res}, "snapshot "+snapshotID)
			}
			if list {
				turns, sid, err := engine.Turns(dir, c.g.sessionRoot, id)
				if err != nil {
					return err
				}
				if format == "json" {
					data, _ := json.Marshal(turns)
					fmt.Fprintln(c.stdout, string(data))
					return nil
				}
				fmt.Fprintf(c.stdout, "session %s\n", sid)
				for _, t := range turns {
					snap := "no snapshot"
					if t.Snapshot != "" {
						snap = "snapshot " + short(t.Snapshot)
					}
					fmt.Fprintf(c.stdout, "%d\t%s\t%s\n", t.Number, snap, oneLine(t.Prompt, 70))
					for _, cs := range t.Commands {
						fmt.Fprintf(c.stdout, "\tsnapshot %s\tbefore %s (rewind --snapshot %s)\n", short(cs.Snapshot), oneLine(cs.What, 60), cs.Snapshot)
					}
				}
				return nil
			}
			r, err := engine.Rewind(cmd.Context(), engine.RewindOptions{
				Dir: dir, SessionRoot: c.g.sessionRoot, Home: c.getenv("HOME"), SessionID: id, Turn: turn, Conversation: conversation,
			})
			if err != nil {
				return err
			}
			return c.printRewound(format, r, fmt.Sprintf("before turn %d of %d of session %s", r.Turn.Number, r.Turns, r.SessionID))
		},
	}
	f := cmd.Flags()
	f.IntVar(&turn, "turn", 0, "the turn to rewind to the start of, from 1 (default: the last turn)")
	f.BoolVar(&conversation, "conversation", false, "rewind the conversation too (the model no longer sees turn N and later)")
	f.BoolVar(&list, "list", false, "list the session's turns and their snapshots instead")
	f.StringVar(&snapshotID, "snapshot", "", "restore the files of this snapshot id (e.g. to undo a rewind)")
	f.StringVar(&format, "format", "text", "text or json")
	return cmd
}

func (c *cli) printRewound(format string, r engine.Rewound, what string) error {
	if format == "json" {
		type out struct {
			engine.Rewound
			Turn int `json:"turn,omitempty"`
		}
		data, err := json.Marshal(out{Rewound: r, Turn: r.Turn.Number})
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, string(data))
		return nil
	}
	fmt.Fprintf(c.stdout, "files rewound to %s: %d changed\n", what, len(r.Files.Changes))
	for _, ch := range r.Files.Changes {
		fmt.Fprintf(c.stdout, "  %-8s %s\n", ch.Action, ch.Path)
	}
	if r.HiddenFrom > 0 {
		fmt.Fprintf(c.stdout, "conversation rewound: events from sequence %d on are hidden from the model\n", r.HiddenFrom)
	}
	fmt.Fprintf(c.stdout, "undo: openseek rewind --snapshot %s\n", r.Files.Saved)
	return nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
