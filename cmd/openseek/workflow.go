package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/workflow"
)

// workflowCmd is `openseek workflow list|run`.
func (c *cli) workflowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workflow",
		Short: "Run Starlark workflows: tools, agents as sub-runs, parallel(), best_of()",
		Long: `A workflow is a Starlark program that calls the agent's tools (as the script
tool does) and runs agents as sub-runs: agent(task=..., kind=..., model=...),
parallel([...]), best_of(n, task, verify=...), review(base=..., goal=...),
goal(session=...), project(), json, args.
Workflows come from .openseek/workflows/NAME.star (once trusted:
openseek trust FILE), ~/.openseek/workflows/NAME.star and the bundled ones
(check, fix-tests, review).`,
	}
	cmd.AddCommand(c.workflowListCmd(), c.workflowRunCmd())
	return cmd
}

func (c *cli) workflowPlaces() (workflow.Places, error) {
	dir, _, err := prepareDir(c.g.dir)
	if err != nil {
		return workflow.Places{}, err
	}
	return workflow.Places{Workspace: dir, Home: c.getenv("HOME"), TrustWorkspace: c.g.trustWS}, nil
}

func (c *cli) workflowListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the workflows: the project's, the user's and the bundled ones",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := c.workflowPlaces()
			if err != nil {
				return err
			}
			all, err := workflow.List(p)
			if err != nil {
				return err
			}
			for _, w := range all {
				doc := w.Doc
				if w.Untrusted {
					doc = "(not trusted: openseek trust " + w.Path + ") " + doc
				}
				fmt.Fprintf(c.stdout, "%s\t%s\t%s\n", w.Name, w.Origin, doc)
			}
			return nil
		},
	}
}

func (c *cli) workflowRunCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "run NAME|FILE.star [args...]",
		Short: "Run a workflow as a session of its own; prints what it printed",
		Long: `Run a workflow as a session of its own; its agents are sessions <id>-sr-N.
Prints what the workflow printed on stdout; with --format jsonl or text, the
run's event stream instead. An error (naming the workflow's line) goes to
stderr; exit status 0 when the workflow finished, 1 when it failed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.asksApproval() {
				return fmt.Errorf("--approval %s needs a controller to ask: a workflow reads no commands, so use never (refuse escalation) or always (grant it unasked)", c.g.approval)
			}
			p, err := c.workflowPlaces()
			if err != nil {
				return err
			}
			w, err := workflow.Find(p, args[0])
			if err != nil {
				return err
			}
			host, err := c.newHost(cmd, "", "")
			if err != nil {
				return err
			}
			defer host.Close()
			if _, err := host.ResolveModel(cmd.Context()); err != nil {
				return err
			}
			oo := engine.OpenOptions{ID: c.g.session, Holder: "openseek workflow " + w.Name}
			var run workflow.Run
			var wait func()
			if format == "" {
				s, err := host.Open(cmd.Context(), oo)
				if err != nil {
					return err
				}
				defer s.Close()
				run = workflow.Run{Host: host, Session: s}
				wait = func() {}
			} else {
				ls, err := c.openSession(cmd.Context(), host, oo, format)
				if err != nil {
					return err
				}
				defer ls.close()
				run = workflow.Run{Host: host, Session: ls.Session}
				wait = func() { _ = ls.f.CatchUp(context.Background()) }
			}
			res, err := run.Exec(cmd.Context(), w, args[1:])
			wait()
			if err != nil {
				return err
			}
			if format == "" {
				fmt.Fprint(c.stdout, res.Output)
			}
			if res.Err != nil {
				msg := res.Err.Error()
				if cmd.Context().Err() != nil {
					msg += " (the run was interrupted; its session records where it stopped)"
				}
				fmt.Fprintln(c.stderr, "error: "+strings.TrimPrefix(msg, "error: "))
				return exitError(1)
			}
			return nil
		},
	}
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVar(&format, "format", "", "stream the run's events on stdout: jsonl or text (default: print the workflow's output)")
	return cmd
}
