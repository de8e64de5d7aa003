//go:build !headless

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/openseek/openseek/internal/render"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/fleet"
	"github.com/openseek/openseek/internal/workflow"
	"github.com/openseek/openseek/protocol"
)

// fleetFlags are the options every fleet command shares.
type fleetFlags struct {
	nats     string
	replicas int
}

func (c *cli) addFleetFlags(cmd *cobra.Command, ff *fleetFlags) {
	cmd.PersistentFlags().StringVar(&ff.nats, "nats", c.getenv("OPENSEEK_NATS_URL"), "NATS server or cluster URLs (comma-separated); default: the machine's embedded server under ~/.openseek/fleet [env OPENSEEK_NATS_URL]")
	cmd.PersistentFlags().IntVar(&ff.replicas, "replicas", 1, "replicas of the fleet's streams when this command creates them (3 on a three-node cluster)")
}

// fleetConfig is where the fleet commands connect: --nats (or
// $OPENSEEK_NATS_URL), else [fleet] nats of the config files (the
// workspace's once it is trusted: a repository must not send your tasks to
// its own server), else the machine's embedded server.
func (c *cli) fleetConfig(ff *fleetFlags, name string) (fleet.Config, error) {
	fc := fleet.Config{URL: ff.nats, From: "--nats", Dir: fleet.DefaultDir(c.getenv("HOME")), Name: name, Replicas: ff.replicas}
	if ff.nats != "" {
		if c.getenv("OPENSEEK_NATS_URL") == ff.nats {
			fc.From = "--nats or $OPENSEEK_NATS_URL"
		}
		return fc, nil
	}
	dir, err := filepath.Abs(c.g.dir)
	if err != nil {
		return fc, err
	}
	cfg, err := engine.LoadConfig(c.getenv("HOME"), dir, c.getenv, c.g.trustWS)
	if err != nil {
		return fc, err
	}
	for _, h := range cfg.Held {
		fmt.Fprintf(c.stderr, "%s: %s\n", name, h)
	}
	url, err := cfg.FleetNATS()
	if err != nil {
		return fc, err
	}
	fc.URL, fc.From = url, "[fleet] nats in "+strings.Join(cfg.Files, " and ")
	return fc, nil
}

// fleetConnect connects a fleet command to its NATS.
func (c *cli) fleetConnect(ctx context.Context, ff *fleetFlags, name string) (*fleet.Client, error) {
	cfg, err := c.fleetConfig(ff, name)
	if err != nil {
		return nil, err
	}
	return fleet.Connect(ctx, cfg)
}

func (c *cli) tasksCmd() *cobra.Command {
	var ff fleetFlags
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "Queue background tasks for workers and follow them (add, list, show, logs, cancel)",
		Long: `Background tasks run on workers ('openseek worker'), each in its own git
worktree (or clone with --repo), with a durable session. With no --nats,
tasks and workers on this machine share an embedded NATS JetStream server
whose state lives under ~/.openseek/fleet/; with --nats URL they join a NATS
cluster, and every machine with a worker shares the queue.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("a subcommand is required: add, list, show, logs or cancel")
		},
	}
	c.addFleetFlags(cmd, &ff)
	cmd.AddCommand(c.tasksAddCmd(&ff), c.tasksListCmd(&ff), c.tasksShowCmd(&ff), c.tasksLogsCmd(&ff), c.tasksCancelCmd(&ff))
	for _, sub := range cmd.Commands() {
		sub.SetFlagErrorFunc(flagError)
	}
	return cmd
}

func (c *cli) tasksAddCmd(ff *fleetFlags) *cobra.Command {
	var (
		spec     fleet.Spec
		deadline string
	)
	cmd := &cobra.Command{
		Use:   "add [flags] [--] task...",
		Short: "Queue a task; print its id",
		Long: `Queue a task for the workers and print its id on stdout. The task runs in its
own worktree of the --dir repository (default: the current directory), or of
a clone of --repo. --runs N tries it N ways in N workspaces and keeps the
best: the runs whose --verify command passes, then the fewest changed lines,
or with --judge the one a judging model picks from their diffs. --workflow NAME
runs that workflow instead of a model turn, with the arguments as its args.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec.Prompt = strings.TrimSpace(strings.Join(args, " "))
			if spec.Workflow != "" {
				if err := c.taskWorkflow(&spec, args); err != nil {
					return err
				}
			}
			if spec.Repo == "" {
				dir, err := filepath.Abs(c.g.dir)
				if err != nil {
					return err
				}
				spec.Dir = dir
			}
			spec.Model = c.g.model
			if spec.Runs < 1 {
				return fmt.Errorf("--runs must be between 1 and 32, not %d", spec.Runs)
			}
			if deadline != "" {
				d, err := parseDeadline(deadline, time.Now())
				if err != nil {
					return err
				}
				spec.Deadline = d
			}
			if err := spec.Validate(); err != nil {
				return err
			}
			fc, err := c.fleetConnect(cmd.Context(), ff, "openseek tasks add")
			if err != nil {
				return err
			}
			defer fc.Close()
			t, err := fc.Add(cmd.Context(), spec)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, t.ID)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&spec.Repo, "repo", "", "clone this repository URL for the task instead of using --dir")
	f.IntVar(&spec.Runs, "runs", 1, "best-of-N: run the task N ways in N workspaces and keep the best")
	f.StringVar(&spec.Verify, "verify", "", "shell command run in the workspace after the task (e.g. 'go test ./...'); best-of-N keeps runs that pass it")
	f.BoolVar(&spec.Judge, "judge", false, "best-of-N: a judging model reads the runs' diffs and picks the best (falling back to --verify, then fewest changed lines)")
	f.Float64Var(&spec.MaxCost, "max-cost", 0, "stop the task once it has cost this many US dollars (0 = no limit)")
	f.StringVar(&deadline, "deadline", "", "stop the task at this time: a duration from now (90m) or an RFC 3339 time")
	f.StringVar(&spec.Workflow, "workflow", "", "run this `NAME` (one of openseek workflow list, or a FILE.star) as the task; the arguments go to it")
	return cmd
}

// taskWorkflow makes spec run the workflow it names, found here as
// `workflow run` finds it (an unknown or untrusted one is an error now,
// not a failed task later); its code travels with the task, so the worker
// runs what was trusted here, and args are its arguments.
func (c *cli) taskWorkflow(spec *fleet.Spec, args []string) error {
	p, err := c.workflowPlaces()
	if err != nil {
		return err
	}
	w, err := workflow.Find(p, spec.Workflow)
	if err != nil {
		return err
	}
	spec.Workflow, spec.Source, spec.Args, spec.Prompt = w.Name, w.Code, args, ""
	return nil
}

// parseDeadline reads a duration from now or an RFC 3339 time.
func parseDeadline(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("--deadline %s is not in the future", s)
		}
		return now.Add(d).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--deadline %q is neither a duration (90m) nor an RFC 3339 time (2026-12-01T18:00:00Z)", s)
	}
	return t.UTC(), nil
}

func checkFormat(format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("--format must be text or json, not %q", format)
	}
	return nil
}

func (c *cli) tasksListCmd(ff *fleetFlags) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the tasks with their state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			fc, err := c.fleetConnect(cmd.Context(), ff, "openseek tasks list")
			if err != nil {
				return err
			}
			defer fc.Close()
			ts, err := fc.List(cmd.Context())
			if err != nil {
				return err
			}
			if format == "json" {
				if ts == nil {
					ts = []*fleet.Task{}
				}
				return json.NewEncoder(c.stdout).Encode(ts)
			}
			w := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tSTATE\tATTEMPTS\tFAILED/CMDS\tVERIFY\tCOST\tCREATED\tTASK")
			for _, t := range ts {
				cmds := "-"
				if t.Commands > 0 {
					cmds = fmt.Sprintf("%d/%d", t.FailedCommands, t.Commands)
				}
				fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.State, t.Attempts, cmds, verifyWord(t.VerifyOK),
					render.USD(t.CostUSD, !t.CostUnknown), t.CreatedAt.Local().Format("2006-01-02 15:04"), oneLine(t.Prompt, 60))
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json")
	return cmd
}

func (c *cli) tasksShowCmd(ff *fleetFlags) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a task: state, attempts, result, session, cost (and every run of a best-of-N task)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			fc, err := c.fleetConnect(cmd.Context(), ff, "openseek tasks show")
			if err != nil {
				return err
			}
			defer fc.Close()
			t, err := fc.Get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			var runs []*fleet.Task
			for _, id := range t.Children {
				r, err := fc.Get(cmd.Context(), id)
				if err != nil {
					return err
				}
				runs = append(runs, r)
			}
			if format == "json" {
				return json.NewEncoder(c.stdout).Encode(struct {
					*fleet.Task
					Runs []*fleet.Task `json:"runs,omitempty"`
				}{t, runs})
			}
			c.printTask(t, "")
			for _, r := range runs {
				mark := ""
				if r.ID == t.Chosen {
					mark = "  (chosen)"
				}
				fmt.Fprintf(c.stdout, "\nrun %d: %s%s\n", r.Run, r.ID, mark)
				c.printTask(r, "  ")
				if r.Diff != "" {
					fmt.Fprintf(c.stdout, "  diff:\n")
					for _, l := range strings.Split(strings.TrimRight(r.Diff, "\n"), "\n") {
						fmt.Fprintf(c.stdout, "    %s\n", l)
					}
				}
			}
			if len(runs) == 0 && t.Diff != "" {
				fmt.Fprintf(c.stdout, "diff:\n%s", t.Diff)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json")
	return cmd
}

func (c *cli) printTask(t *fleet.Task, indent string) {
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(c.stdout, "%s%-10s %s\n", indent, k+":", v)
		}
	}
	row("id", t.ID)
	row("task", t.Prompt)
	row("state", string(t.State))
	row("attempts", fmt.Sprint(t.Attempts))
	row("worker", t.Worker)
	row("session", t.Session)
	row("workspace", t.Workspace)
	row("cost", render.USD(t.CostUSD, !t.CostUnknown))
	if t.Commands > 0 {
		row("commands", fmt.Sprintf("%d run, %d failed", t.Commands, t.FailedCommands))
	}
	if t.VerifyOK != nil {
		row("verify", verifyWord(t.VerifyOK)+" ("+t.Verify+")")
	}
	if t.Diff != "" || t.State == fleet.Completed {
		row("changed", fmt.Sprintf("%d lines", t.ChangedLines))
	}
	row("chosen", t.Chosen)
	row("verdict", t.Verdict)
	row("warning", t.Warning)
	row("result", t.Result)
	row("error", t.Error)
}

// verifyWord says how a task's verify command went: passed, failed, or
// "-" when it did not run.
func verifyWord(ok *bool) string {
	switch {
	case ok == nil:
		return "-"
	case *ok:
		return "passed"
	}
	return "failed"
}

// errOutputClosed stops reading a task's events for a reader that left.
var errOutputClosed = errors.New("standard output was closed")

func (c *cli) tasksLogsCmd(ff *fleetFlags) *cobra.Command {
	var (
		follow bool
		format string
	)
	cmd := &cobra.Command{
		Use:   "logs ID",
		Short: "Print a task's session events (JSONL, or text); --follow waits for the end",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			emit, err := c.sink(format, nil)
			if err != nil {
				return err
			}
			fc, err := c.fleetConnect(cmd.Context(), ff, "openseek tasks logs")
			if err != nil {
				return err
			}
			defer fc.Close()
			// `tasks logs ID | head`: once the reader has closed stdout
			// (the run's context is cancelled then), the loop ends, and
			// quietly: the reader has what it wanted.
			closed := func() bool { o, ok := c.stdout.(*outWriter); return ok && o.failed.Load() }
			err = fc.Events(cmd.Context(), args[0], follow, func(e fleet.Event) error {
				if closed() {
					return errOutputClosed
				}
				if e.End != "" {
					fmt.Fprintf(c.stderr, "task %s: %s\n", args[0], e.End)
					return nil
				}
				if ev, ok := protocol.ParseEvent(e.Line); ok {
					emit(ev)
				}
				return nil
			})
			if closed() {
				return nil
			}
			return err
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new events until the task ends")
	cmd.Flags().StringVar(&format, "format", "", "output: jsonl or text (default: text on a terminal, jsonl otherwise)")
	return cmd
}

func (c *cli) tasksCancelCmd(ff *fleetFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel ID",
		Short: "Cancel a queued or running task",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fc, err := c.fleetConnect(cmd.Context(), ff, "openseek tasks cancel")
			if err != nil {
				return err
			}
			defer fc.Close()
			t, err := fc.Cancel(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "%s %s\n", t.ID, t.State)
			return nil
		},
	}
}

// fleetRoutes mounts the fleet's task API (/v1/tasks…, see fleet.Client.Routes)
// on `serve --http`, behind its token. The fleet is connected on the first
// request, so a server that never sees one starts no NATS; the connection
// ends with ctx. NATS comes from $OPENSEEK_NATS_URL, else [fleet] nats,
// else the machine's embedded server.
func (c *cli) fleetRoutes(ctx context.Context) func(*http.ServeMux) {
	var (
		mu    sync.Mutex
		inner *http.ServeMux
	)
	routes := func() (*http.ServeMux, error) {
		mu.Lock()
		defer mu.Unlock()
		if inner != nil {
			return inner, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fc, err := c.fleetConnect(ctx, &fleetFlags{nats: c.getenv("OPENSEEK_NATS_URL"), replicas: 1}, "openseek serve --http")
		if err != nil {
			return nil, err
		}
		context.AfterFunc(ctx, fc.Close)
		inner = http.NewServeMux()
		fc.Routes(inner)
		return inner, nil
	}
	serve := func(w http.ResponseWriter, r *http.Request) {
		mux, err := routes()
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "the task queue is unavailable: " + err.Error()})
			return
		}
		mux.ServeHTTP(w, r)
	}
	return func(mux *http.ServeMux) {
		mux.HandleFunc("/v1/tasks", serve)
		mux.HandleFunc("/v1/tasks/", serve)
	}
}
