//go:build !headless

package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/fleet"
)

func (c *cli) workerCmd() *cobra.Command {
	var (
		ff          fleetFlags
		concurrency int
		ackWait     time.Duration
		name        string
	)
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run queued tasks (openseek tasks add) until stopped",
		Long: `Take tasks from the fleet's queue and run each in its own workspace under
~/.openseek/fleet/work/<task id> (a git worktree, or a clone for --repo) with
the same engine, sandbox and session log as 'run'. A worker holds each task
by heartbeat; if it dies, another worker takes the task over after the ack
wait and resumes its session. Stop it with Ctrl-C: running tasks go back to
the queue. The global flags (--model, --api-url, --approval …) apply to
every task; a task's own --model wins.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if concurrency < 1 {
				return fmt.Errorf("--concurrency must be at least 1, not %d", concurrency)
			}
			if ackWait < time.Second {
				return fmt.Errorf("--ack-wait must be at least 1s, not %s", ackWait)
			}
			if c.asksApproval() {
				return fmt.Errorf("--approval %s needs a controller to ask: a worker runs unattended, so use never or always", c.g.approval)
			}
			opts, err := c.engineOptions(cmd, "", "")
			if err != nil {
				return err
			}
			cfg, err := c.fleetConfig(&ff, "openseek worker")
			if err != nil {
				return err
			}
			cfg.AckWait = ackWait
			fc, err := fleet.Connect(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			defer fc.Close()
			w := fc.NewWorker(fleet.WorkerOptions{
				Name:        name,
				Concurrency: concurrency,
				Engine:      opts,
				WorkRoot:    filepath.Join(cfg.Dir, "work"),
				Log:         c.stderr,
			})
			where := "the embedded server (" + cfg.Dir + ")"
			if cfg.URL != "" {
				where = fleet.Redact(cfg.URL)
			}
			fmt.Fprintf(c.stderr, "openseek worker: taking tasks from %s, %d at a time\n", where, concurrency)
			return w.Run(cmd.Context())
		},
	}
	c.addFleetFlags(cmd, &ff)
	f := cmd.Flags()
	f.IntVar(&concurrency, "concurrency", 1, "tasks run at once")
	f.DurationVar(&ackWait, "ack-wait", 30*time.Second, "how long a task stays held without a heartbeat before another worker may take it")
	f.StringVar(&name, "name", "", "this worker's name in task records (default host:pid)")
	return cmd
}
