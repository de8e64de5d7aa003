//go:build !headless

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
)

// inspectCmd is `openseek inspect [ID]`: the read-only session viewer
// over the workspace's session logs. It needs no model key and never
// writes a session.
func (c *cli) inspectCmd() *cobra.Command {
	var hf httpFlags
	cmd := &cobra.Command{
		Use:   "inspect [ID]",
		Short: "Serve the read-only session viewer over this workspace's session logs (no key needed) and print its URL",
		Long: `Serve the read-only session viewer: the timeline of every event, tokens
and cost per step, cache-hit ratio, compaction ranges and sub-agent sessions,
over HTTP on a loopback address. The URL with the token is printed on stderr;
with ID it opens that session's page. Nothing is written and no model key is
needed. Ctrl-C stops it.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			host, err := c.newHost(cmd, "", "")
			if err != nil {
				return err
			}
			defer host.Close()
			path := "/"
			if len(args) == 1 {
				if _, err := host.LoadSession(args[0]); err != nil {
					return fmt.Errorf("%w; `openseek sessions list` shows this workspace's sessions", err)
				}
				path = "/sessions/" + args[0]
			}
			return c.serveAPI(cmd.Context(), []*engine.Host{host}, hf, true, path)
		},
	}
	cmd.Flags().StringVar(&hf.addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	cmd.Flags().BoolVar(&hf.allowRemote, "http-allow-remote", false, "allow a non-loopback --addr (anyone with the token can read the sessions)")
	return cmd
}
