package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/server/stdio"
	"github.com/openseek/openseek/protocol"
)

func (c *cli) serveCmd() *cobra.Command {
	var sysFile, addendum string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Session server: JSONL commands on stdin, JSONL events on stdout",
		Long: `Serve one session over the OpenSeek wire protocol: JSONL commands
(prompt, steer, cancel, goal, compact, approval, jobs_snapshot, job_stop) on
stdin, JSONL events on stdout. End of input finishes the queued turns and
exits 0.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected value '%s' found; no more were expected", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			w := protocol.NewWriter(c.stdout)
			emit := func(e protocol.Event) { _ = w.Emit(e) }
			opts, err := c.engineOptions(cmd, sysFile, addendum)
			if err != nil {
				return err
			}
			opts.Holder = "openseek serve"
			if opts.Resolved, err = engine.Resolve(opts); err != nil {
				emit(protocol.AgentSetupFailed{Error: err.Error()})
				return err
			}
			eng, err := c.startEngine(opts, emit)
			if err != nil {
				emit(protocol.AgentSetupFailed{Error: err.Error()})
				return err
			}
			defer eng.Close()
			return stdio.Serve(cmd.Context(), eng, c.stdin, emit)
		},
	}
	f := cmd.Flags()
	f.StringVar(&sysFile, "system-prompt-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_FILE"), "complete system prompt replacement")
	f.StringVar(&addendum, "system-prompt-addendum-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_ADDENDUM_FILE"), "appended to the system prompt")
	return cmd
}
