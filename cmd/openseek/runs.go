//go:build !headless

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/fleet"
	"github.com/openseek/openseek/internal/render"
)

// maxRuns is the most attempts of best-of-N (run --runs).
const maxRuns = fleet.MaxRuns

// runBestOf is `openseek run --runs N`: N attempts of one task on this
// machine, without a queue, then one is chosen (fleet.Choose) and all are
// reported. The working tree changes only with --apply.
func (c *cli) runBestOf(cmd *cobra.Command, args []string, b *bestOfFlags, format string) error {
	if !cmd.Flags().Changed("runs") {
		return errors.New("--concurrency, --verify, --judge, --apply and --keep go with --runs N (best-of-N)")
	}
	if err := fleet.CheckRuns(b.runs); err != nil {
		return err
	}
	if b.concurrency < 0 {
		return fmt.Errorf("--concurrency must be at least 1, not %d", b.concurrency)
	}
	if format != "" && format != "text" && format != "json" {
		return fmt.Errorf("--format with --runs must be text or json (one report), not %q", format)
	}
	if b.judge && b.runs < 2 {
		return errors.New("--judge picks the best of several runs: give --runs 2 or more")
	}
	for _, name := range []string{"continue", "session", "no-session", "input-format", "review-gate"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			return fmt.Errorf("--%s does not go with --runs: each run has its own new session", name)
		}
	}
	if c.asksApproval() {
		return fmt.Errorf("--approval %s needs a controller to ask: runs are unattended, so use never or always", c.g.approval)
	}
	task, err := c.taskWords(args)
	if err != nil {
		return err
	}
	if task == "" {
		return errors.New(`a task is required: openseek run --runs N "what to do"`)
	}
	opts, err := c.engineOptions(cmd, "", "")
	if err != nil {
		return err
	}
	check := b.verify
	if check == "" {
		if check, err = engine.CheckScript(opts); err != nil {
			return err
		}
	}
	home := c.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	root := filepath.Join(home, ".openseek", "runs", time.Now().UTC().Format("20060102-150405.000"))
	rep, err := fleet.RunLocal(cmd.Context(), fleet.LocalOptions{
		Prompt:      task,
		Dir:         opts.Dir,
		Runs:        b.runs,
		Concurrency: b.concurrency,
		Verify:      check,
		Judge:       b.judge,
		MaxCost:     c.g.maxCost,
		Engine:      opts,
		Root:        root,
		Keep:        b.keep,
		Progress:    c.stderr,
	}, nil)
	if err != nil {
		return err
	}
	if rep.Warning != "" {
		fmt.Fprintf(c.stderr, "openseek: warning: %s\n", rep.Warning)
	}
	var applyErr error
	if b.apply && rep.Chosen != 0 {
		applyErr = fleet.Apply(cmd.Context(), rep)
	}
	data, _ := json.MarshalIndent(rep, "", "  ")
	_ = os.WriteFile(filepath.Join(root, "report.json"), append(data, '\n'), 0o644)
	if format == "json" {
		if err := json.NewEncoder(c.stdout).Encode(rep); err != nil {
			return err
		}
	} else {
		c.printBestOf(rep, b.apply)
	}
	if applyErr != nil {
		return applyErr
	}
	if rep.Chosen == 0 {
		return exitError(1)
	}
	return nil
}

// printBestOf writes the readable report: every run, the choice, and how
// to apply it.
func (c *cli) printBestOf(rep *fleet.LocalReport, apply bool) {
	w := c.stdout
	for _, a := range rep.Runs {
		mark := ""
		if a.Run == rep.Chosen {
			mark = "  ← chosen"
		}
		fmt.Fprintf(w, "run %d: %s%s\n", a.Run, a.State, mark)
		if a.VerifyOK != nil {
			fmt.Fprintf(w, "  verify:  %s (%s)\n", map[bool]string{true: "passed", false: "failed"}[*a.VerifyOK], rep.Verify)
		}
		fmt.Fprintf(w, "  changed: %d lines   cost: %s   time: %.1fs\n", a.ChangedLines, render.USD(a.CostUSD, !a.CostUnknown), a.Seconds)
		if a.Error != "" {
			fmt.Fprintf(w, "  error:   %s\n", oneLine(a.Error, 200))
		}
		if a.Result != "" {
			fmt.Fprintf(w, "  answer:  %s\n", oneLine(a.Result, 200))
		}
		for _, l := range strings.Split(strings.TrimRight(a.Stat, "\n"), "\n") {
			if strings.TrimSpace(l) != "" {
				fmt.Fprintf(w, "  %s\n", strings.TrimSpace(l))
			}
		}
		if a.Session != "" {
			fmt.Fprintf(w, "  session: %s\n", a.SessionLog)
		}
	}
	fmt.Fprintf(w, "\nverdict: %s\n", rep.Verdict)
	fmt.Fprintf(w, "cost:    %s", render.USD(rep.CostUSD, !rep.CostUnknown))
	if rep.JudgeCost > 0 {
		fmt.Fprintf(w, " (judge $%.4f)", rep.JudgeCost)
	}
	fmt.Fprintf(w, "\n")
	chosen := rep.ChosenRun()
	switch {
	case chosen == nil:
	case chosen.Patch == "":
		fmt.Fprintf(w, "run %d changed no file: nothing to apply\n", chosen.Run)
	case rep.Applied:
		fmt.Fprintf(w, "applied run %d's change to %s\n", chosen.Run, rep.ApplyIn)
	case !apply:
		fmt.Fprintf(w, "apply it with: git -C %s apply %s   (or run again with --apply)\n", shellQuote(rep.ApplyIn), shellQuote(chosen.Patch))
	}
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
