package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/internal/review"
	"github.com/openseek/openseek/protocol"
)

func (c *cli) reviewCmd() *cobra.Command {
	var (
		base, format string
		uncommitted  bool
	)
	cmd := &cobra.Command{
		Use:   "review [--base REF] [--uncommitted] [--format json|text]",
		Short: "Read-only code review of base...HEAD (or uncommitted changes); prints a JSON ReviewReport",
		Long: `Review code changes with the model, read-only (plan mode: no writes, only
known-safe commands, in the sandbox). The model sees the diff and reads the
code around it with its tools, then reports findings.

  openseek review                     REF...HEAD from the default branch (origin/HEAD, else main, else master)
  openseek review --base v1.2         v1.2...HEAD (the changes since their merge base)
  openseek review --uncommitted       staged, unstaged and untracked changes

Prints one JSON ReviewReport on stdout:
  {"findings":[{"file","line_start","line_end","severity":"high|medium|low","title","body"}],
   "verdict":"approve|comment|request_changes","summary":"…"}
or, with --format text, a readable report. Exit status 0 when the review
completed, whatever its verdict.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "json" && format != "text" {
				return fmt.Errorf("--format must be json or text, not %q", format)
			}
			opts, err := c.engineOptions(cmd, "", "")
			if err != nil {
				return err
			}
			opts.Holder = "openseek review"
			rep, err := review.Run(cmd.Context(), review.Options{Engine: opts, Session: c.g.session, Progress: c.reviewProgress(), Base: base, Uncommitted: uncommitted})
			if err != nil {
				return err
			}
			if format == "text" {
				return review.WriteText(c.stdout, rep)
			}
			data, err := json.Marshal(rep)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, string(data))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&base, "base", "", "review REF...HEAD (default: the merge base with the default branch)")
	f.BoolVar(&uncommitted, "uncommitted", false, "review the uncommitted changes (staged, unstaged, untracked) instead")
	f.StringVar(&format, "format", "json", "json (one ReviewReport object) or text")
	return cmd
}

// reviewProgress shows the review's steps on a terminal's stderr (stdout
// carries only the report); elsewhere events are dropped.
func (c *cli) reviewProgress() func(protocol.Event) {
	if !isTerminal(c.stderr) {
		return func(protocol.Event) {}
	}
	return render.NewText(c.stderr, c.stderr, render.Options{Color: render.ColorAllowed(true, c.getenv), Live: true}).Emit
}
