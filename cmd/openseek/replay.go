package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/replay"
)

func (c *cli) replayCmd() *cobra.Command {
	var into string
	cmd := &cobra.Command{
		Use:   "replay ID [--into DIR]",
		Short: "Re-run a recorded session's tool calls in a fresh copy of its starting tree and report results that differ",
		Long: `Re-run a recorded session: the files as they were before its first turn (its
snapshot) are copied into DIR (--into; a new or empty directory, kept
afterwards) or a temporary directory, and the session's recorded model
responses stand in for the model, so every tool call runs again through the
real engine, sandbox and command rules included. Each result is compared
with the recorded one, after normalising what legitimately changes
(durations, times, temporary paths, job ids, the directory itself).

The calls whose results differ are reported with a diff, and the exit
status is 1 if any do, 0 if none. No model is asked and no key is needed;
nothing is recorded. The session must have been recorded with snapshots on
(the default) by the same user in this workspace. Steering typed during a
turn is not replayed; a session that delegated to sub-agents is refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.asksApproval() {
				return fmt.Errorf("--approval %s needs a controller to ask: replay answers no approvals, so use never (refuse escalation) or always (grant it unasked)", c.g.approval)
			}
			store, err := c.store()
			if err != nil {
				return err
			}
			if _, err := engine.ReadLog(store, args[0]); err != nil {
				return err
			}
			s, err := store.Load(args[0])
			if err != nil {
				return err
			}
			opts, err := c.engineOptions(cmd, "", "")
			if err != nil {
				return err
			}
			ws := filepath.Dir(store.Root())
			if filepath.IsAbs(c.g.sessionRoot) {
				ws = opts.Dir
			}
			if real, err := filepath.EvalSymlinks(ws); err == nil {
				ws = real
			}
			rep, err := replay.Run(cmd.Context(), replay.Options{Session: s, Workspace: ws, Home: c.getenv("HOME"), Dir: into, Engine: opts})
			if err != nil {
				if errors.Is(err, replay.ErrNoStartingTree) {
					return err
				}
				return fmt.Errorf("replay session %s: %w", s.ID, err)
			}
			return c.printReplay(s, rep)
		},
	}
	cmd.Flags().StringVar(&into, "into", "", "restore the starting tree into DIR and run there (default: a temporary directory, removed afterwards)")
	return cmd
}

// printReplay reports a replay: each differing call with a diff of its
// results, and exit status 1 if anything differed.
func (c *cli) printReplay(s *engine.Log, rep replay.Report) error {
	for _, call := range rep.Differ {
		fmt.Fprintf(c.stdout, "call %s (%s %s): ", call.ID, call.Tool, oneLine(call.Arguments, 120))
		if !call.Ran {
			fmt.Fprintln(c.stdout, "not made in the replay")
			continue
		}
		fmt.Fprintln(c.stdout, "the result differs")
		diff := udiff.Unified("recorded", "replayed", withNewline(call.Recorded), withNewline(call.Replayed))
		fmt.Fprintln(c.stdout, "  "+strings.ReplaceAll(strings.TrimRight(diff, "\n"), "\n", "\n  "))
	}
	if rep.Unused > 0 {
		fmt.Fprintf(c.stdout, "the replay ended before the recording did: %d recorded model responses were not asked for\n", rep.Unused)
	}
	if len(rep.Differ) == 0 && rep.Unused == 0 {
		fmt.Fprintf(c.stdout, "replayed session %s: %d tool calls, every result as recorded\n", s.ID, rep.Calls)
		return nil
	}
	fmt.Fprintf(c.stdout, "replayed session %s: %d tool calls, %d differ\n", s.ID, rep.Calls, len(rep.Differ))
	return exitError(1)
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
