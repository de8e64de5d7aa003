package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/mcp"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/server/mcpserver"
	"github.com/openseek/openseek/internal/trust"
	"github.com/openseek/openseek/protocol"
)

// mcpCmd is `openseek mcp` (list servers and tools) and `openseek mcp
// serve` (OpenSeek as an MCP server over stdio).
func (c *cli) mcpCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List the configured MCP servers and the tools they expose",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, _, err := prepareDir(c.g.dir)
			if err != nil {
				return err
			}
			home := c.getenv("HOME")
			wsFile := filepath.Join(dir, ".mcp.json")
			trusted := c.g.trustWS || trust.Open(home).Trusted(wsFile)
			var problems []string
			emit := func(e protocol.Event) {
				switch e := e.(type) {
				case protocol.McpConfigIgnored:
					problems = append(problems, e.Reason)
				case protocol.McpConfigInvalid:
					problems = append(problems, e.Path+": "+e.Error)
				case protocol.McpConfigUnreadable:
					problems = append(problems, e.Path+": "+e.Error)
				}
			}
			servers := mcp.Load(mcp.ConfigFiles(home, dir, c.g.mcpConfig, trusted), emit)
			for _, p := range problems {
				fmt.Fprintf(c.stderr, "warning: %s\n", p)
			}
			if len(servers) == 0 {
				fmt.Fprintln(c.stdout, "no MCP servers configured (~/.openseek/mcp.json, .mcp.json or --mcp-config)")
				return nil
			}
			m := mcp.Start(cmd.Context(), servers, mcp.Options{Dir: dir})
			defer m.Close()
			for _, st := range m.Status() {
				state := string(st.State)
				if st.Error != "" {
					state += ": " + st.Error
				}
				fmt.Fprintf(c.stdout, "%s (%s, %s) %s\n", st.Name, st.Transport, st.Source, state)
				for _, t := range st.Tools {
					fmt.Fprintf(c.stdout, "  %s\t%s\n", t.Name, oneLine(t.Description, 100))
				}
			}
			return nil
		},
	}
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Offer OpenSeek itself as an MCP server over stdio (tools: run, continue)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := c.engineOptions(cmd, "", "")
			if err != nil {
				return err
			}
			if c.g.approval == "ask" {
				return errors.New("--approval ask needs a controller to ask; mcp serve has none")
			}
			if _, err := engine.Resolve(opts); err != nil {
				return err
			}
			dir, _, err := prepareDir(c.g.dir)
			if err != nil {
				return err
			}
			opts.Dir, opts.Holder = dir, "openseek mcp serve"
			return mcpserver.Serve(cmd.Context(), engineRunner{opts: opts}, c.stdin, c.stdout)
		},
	}
	cmd.AddCommand(serve)
	return cmd
}

// engineRunner runs each MCP task in its own engine (one session each).
type engineRunner struct{ opts engine.Options }

func (r engineRunner) Run(ctx context.Context, task, sessionID string) (string, string, error) {
	o := r.opts
	o.SessionID = sessionID
	eng, err := engine.New(o)
	if err != nil {
		return "", sessionID, err
	}
	defer eng.Close()
	out, err := eng.Prompt(ctx, protocol.Text(task), nil)
	if err != nil {
		return "", eng.SessionID(), err
	}
	if !out.OK() {
		return "", eng.SessionID(), fmt.Errorf("the turn ended %s: %s", out.Kind, out.Answer)
	}
	return out.Answer, eng.SessionID(), nil
}

// trustCmd is `openseek trust`: trust the repository's own .mcp.json and
// .openseek/hooks.json (as they are now).
func (c *cli) trustCmd() *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "trust [file...]",
		Short: "Trust this repository's .mcp.json, .openseek/hooks.json and .openseek/config.toml allow rules (they run code); --list shows what is trusted",
		RunE: func(cmd *cobra.Command, args []string) error {
			store := trust.Open(c.getenv("HOME"))
			if list {
				entries, err := store.List()
				if err != nil {
					return err
				}
				for _, e := range entries {
					state := "trusted"
					if !store.Trusted(e.Path) {
						state = "changed since trusted"
					}
					fmt.Fprintf(c.stdout, "%s\t%s\n", e.Path, state)
				}
				return nil
			}
			files := args
			if len(files) == 0 {
				dir, _, err := prepareDir(c.g.dir)
				if err != nil {
					return err
				}
				for _, f := range trust.WorkspaceFiles(dir) {
					if _, err := os.Stat(f); err == nil {
						files = append(files, f)
					}
				}
				if len(files) == 0 {
					return errors.New("nothing to trust: this workspace has no .mcp.json, .openseek/hooks.json or .openseek/config.toml")
				}
			}
			if err := store.Trust(files...); err != nil {
				return err
			}
			for _, f := range files {
				fmt.Fprintf(c.stdout, "trusted %s\n", f)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list trusted files")
	return cmd
}

// rulesCmd is `openseek rules check -- CMD…`.
func (c *cli) rulesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "rules", Short: "Inspect command rules"}
	check := &cobra.Command{
		Use:   "check -- COMMAND...",
		Short: "Show which rules match a command and the decision",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, _, err := prepareDir(c.g.dir)
			if err != nil {
				return err
			}
			mode, err := policy.ParseMode(c.g.approval)
			if err != nil {
				return err
			}
			rules, err := policy.LoadRules(filepath.Join(c.getenv("HOME"), ".openseek", "config.toml"), filepath.Join(dir, ".openseek", "config.toml"))
			if err != nil {
				return err
			}
			p := &policy.Policy{Mode: mode, Rules: rules, Workspace: dir}
			fmt.Fprint(c.stdout, p.CheckCommand(strings.Join(args, " ")).Explain())
			return nil
		},
	}
	cmd.AddCommand(check)
	return cmd
}
