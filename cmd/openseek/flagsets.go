package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The flag sets of commands the headless build leaves out (headless.go)
// are declared here, once, for both builds: a left-out command keeps its
// flags, so that using one fails with how to get the command rather than
// as an unknown flag, and its help reads the same.

// tuiFlags are the terminal UI's own flags (on `tui` and on the bare root).
type tuiFlags struct {
	cont              bool
	attach            string
	sysFile, addendum string
}

func (tf *tuiFlags) bind(cmd *cobra.Command, c *cli) {
	f := cmd.Flags()
	f.BoolVar(&tf.cont, "continue", false, "continue the most recent session of the workspace")
	f.StringVar(&tf.attach, "attach", "", "drive a running openseek serve --http at `URL` (the address it printed: http://ADDR/#token=TOKEN)")
	f.StringVar(&tf.sysFile, "system-prompt-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_FILE"), "complete system prompt replacement [env OPENSEEK_SYSTEM_PROMPT_FILE]")
	f.StringVar(&tf.addendum, "system-prompt-addendum-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_ADDENDUM_FILE"), "appended to the system prompt [env OPENSEEK_SYSTEM_PROMPT_ADDENDUM_FILE]")
}

// httpFlags are the flags of the HTTP transport (serve --http, inspect).
type httpFlags struct {
	addr        string
	allowRemote bool
	workspaces  []string // serve --http --workspace DIR: more workspaces, at /w/1, /w/2, …
}

// bestOfFlags are run's best-of-N flags: `openseek run --runs N "task"`.
type bestOfFlags struct {
	runs, concurrency int
	verify            string
	judge, apply      bool
	keep              bool
}

func (b *bestOfFlags) addFlags(f *pflag.FlagSet) {
	f.IntVar(&b.runs, "runs", 0, fmt.Sprintf("best-of-N: run the task N ways at once (1-%d), each in its own worktree (or copy), and pick one", maxRuns))
	f.IntVar(&b.concurrency, "concurrency", 0, "with --runs: attempts run at once (default min(N, CPUs))")
	f.StringVar(&b.verify, "verify", "", "with --runs: the command a run must pass to be chosen (default: the configured or detected check)")
	f.BoolVar(&b.judge, "judge", false, "with --runs: a judging model reads the runs' diffs and picks the best")
	f.BoolVar(&b.apply, "apply", false, "with --runs: apply the chosen run's change to the working tree (default: print how)")
	f.BoolVar(&b.keep, "keep", false, "with --runs: keep every run's workspace (default: keep only their patches and sessions)")
}
