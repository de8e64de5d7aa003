package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/server/mcpserver"
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
			if _, _, err := prepareDir(c.g.dir); err != nil {
				return err
			}
			host, err := c.newHost(cmd, "", "")
			if err != nil {
				return err
			}
			defer host.Close()
			status := host.MCPStatus(cmd.Context())
			for _, p := range host.Warnings() {
				fmt.Fprintf(c.stderr, "warning: %s\n", p)
			}
			if len(status) == 0 {
				fmt.Fprintln(c.stdout, "no MCP servers configured (~/.openseek/mcp.json, .mcp.json or --mcp-config)")
				return nil
			}
			for _, st := range status {
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
			if c.asksApproval() {
				return fmt.Errorf("--approval %s needs a controller to ask; mcp serve has none", c.g.approval)
			}
			if _, _, err := prepareDir(c.g.dir); err != nil {
				return err
			}
			host, err := c.newHost(cmd, "", "")
			if err != nil {
				return err
			}
			defer host.Close()
			// No model check here: a missing key is reported on the tool
			// call, after the client's handshake, where a person sees it.
			return mcpserver.Serve(cmd.Context(), hostRunner{host: host}, c.stdin, c.stdout)
		},
	}
	cmd.AddCommand(serve)
	return cmd
}

// hostRunner runs each MCP task as a turn of a session of the host; a
// session stays open for follow-ups until the server stops, and turns of
// one session run one at a time.
type hostRunner struct{ host *engine.Host }

func (r hostRunner) Run(ctx context.Context, task, sessionID string) (mcpserver.Answer, error) {
	// continue names a session: it must exist (run passes "" for a new one).
	s, err := r.host.Open(ctx, engine.OpenOptions{ID: sessionID, Existing: sessionID != "", Holder: "openseek mcp serve"})
	if err != nil {
		return mcpserver.Answer{SessionID: sessionID}, err
	}
	// The turn's events, for the warnings, compactions and context
	// health the caller's person should read.
	ans := mcpserver.Answer{SessionID: s.ID()}
	note := func(e engine.Entry) error { ans.Note(e.Event); return nil }
	f := s.Follow(s.Hub().Head(), note)
	out, err := s.Prompt(ctx, protocol.Text(task), nil)
	_ = f.CatchUp(ctx)
	_ = f.Stop() // fn is no longer called: ans is ours again
	if err == nil && !out.OK() {
		err = fmt.Errorf("the turn ended %s: %s", out.Kind, out.Answer)
	}
	if err == nil {
		ans.Answer = out.Answer
	}
	return ans, err
}

// trustCmd is `openseek trust`: trust the repository's own .mcp.json,
// .openseek/hooks.json and .openseek/config.toml (as they are now).
func (c *cli) trustCmd() *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "trust [file...]",
		Short: "Trust this repository's .mcp.json, .openseek/hooks.json and .openseek/config.toml (they run programs or send data elsewhere); --list shows what is trusted",
		RunE: func(cmd *cobra.Command, args []string) error {
			home := c.getenv("HOME")
			if list {
				files, err := engine.TrustedFiles(home)
				if err != nil {
					return err
				}
				for _, f := range files {
					state := "trusted"
					if f.Changed {
						state = "changed since trusted"
					}
					fmt.Fprintf(c.stdout, "%s\t%s\n", f.Path, state)
				}
				return nil
			}
			var dir string
			if len(args) == 0 {
				d, _, err := prepareDir(c.g.dir)
				if err != nil {
					return err
				}
				dir = d
			}
			files, err := engine.TrustFiles(home, dir, args)
			if err != nil {
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
			host, err := c.newHost(cmd, "", "")
			if err != nil {
				return err
			}
			defer host.Close()
			for _, p := range host.Warnings() {
				fmt.Fprintf(c.stderr, "warning: %s\n", p)
			}
			fmt.Fprint(c.stdout, host.CheckCommand(strings.Join(args, " ")).Explain())
			return nil
		},
	}
	cmd.AddCommand(check)
	return cmd
}
