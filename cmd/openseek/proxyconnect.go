package main

import (
	"context"
	"errors"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
)

// proxyConnectCmd is `openseek proxy-connect HOST PORT`: ssh's
// ProxyCommand for a sandboxed command whose network is an allowlist —
// a CONNECT tunnel through the proxy its environment names, piped to
// standard input and output.
func (c *cli) proxyConnectCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "proxy-connect HOST PORT",
		Short: "Tunnel stdin/stdout to HOST:PORT through the sandbox's network proxy (ssh ProxyCommand)",
		Long: `Open a tunnel to HOST:PORT through the HTTP proxy named by ALL_PROXY,
HTTPS_PROXY or HTTP_PROXY — inside OpenSeek's sandbox with a [sandbox]
network allowlist, its proxy — and copy standard input to it and its
answer to standard output. For ssh, scp, rsync and git over ssh:

  ssh -o ProxyCommand='openseek proxy-connect %h %p' git@github.com
  GIT_SSH_COMMAND="ssh -o ProxyCommand='openseek proxy-connect %h %p'" git fetch

HOST:PORT must be allowed ("github.com:22"); a refusal prints the proxy's
message and exits 1.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := strconv.Atoi(args[1]); err != nil {
				return errors.New("PORT must be a number, not " + args[1])
			}
			return engine.ProxyConnect(context.Background(), c.getenv, args[0], args[1], c.stdin, c.stdout)
		},
	}
}
