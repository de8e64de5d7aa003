package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/server/stdio"
	"github.com/openseek/openseek/protocol"
)

func (c *cli) serveCmd() *cobra.Command {
	var sysFile, addendum string
	var hf httpFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Session server: JSONL commands on stdin, JSONL events on stdout",
		Long: `Serve one session over the OpenSeek wire protocol: JSONL commands
(prompt, steer, cancel, goal, compact, approval, jobs_snapshot, job_stop) on
stdin, JSONL events on stdout. End of input finishes the queued turns and
exits 0.

With --http [ADDR] it serves the workspace over HTTP instead (default
` + httpDefaultAddr + `; port 0 picks a free one): a JSON API, each session's
events as server-sent events, and the web app. The URL with the token is
printed on stderr.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && cmd.Flags().Changed("http") && hf.addr == httpDefaultAddr {
				hf.addr = args[0] // --http ADDR
				return nil
			}
			if len(args) > 0 {
				return fmt.Errorf("unexpected value '%s' found; no more were expected", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("http") {
				return c.serveHTTP(cmd, hf, sysFile, addendum)
			}
			if hf.allowRemote {
				return errors.New("--http-allow-remote needs --http")
			}
			if len(hf.workspaces) > 0 {
				return errors.New("--workspace needs --http")
			}
			w := protocol.NewWriter(c.stdout)
			fail := func(err error) error {
				_ = w.Emit(protocol.AgentSetupFailed{Error: err.Error()})
				return err
			}
			host, err := c.newHost(cmd, sysFile, addendum)
			if err != nil {
				return fail(err)
			}
			defer host.Close()
			if _, err := host.ResolveModel(cmd.Context()); err != nil {
				return fail(err)
			}
			_, created, err := prepareDir(c.g.dir)
			if err != nil {
				return fail(err)
			}
			c.warnAPIKey()
			if created {
				_ = w.Emit(protocol.WorkspaceCreated{Dir: host.Workspace()})
			}
			sess, err := host.Open(cmd.Context(), engine.OpenOptions{ID: c.g.session, Holder: "openseek serve"})
			if err != nil {
				return fail(err)
			}
			defer sess.Close()
			return stdio.Serve(cmd.Context(), sess, c.stdin, c.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&sysFile, "system-prompt-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_FILE"), "complete system prompt replacement")
	f.StringVar(&addendum, "system-prompt-addendum-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_ADDENDUM_FILE"), "appended to the system prompt")
	f.StringVar(&hf.addr, "http", "", "serve the HTTP API and web app on ADDR (default "+httpDefaultAddr+") instead of stdio")
	f.Lookup("http").NoOptDefVal = httpDefaultAddr
	f.BoolVar(&hf.allowRemote, "http-allow-remote", false, "allow a non-loopback --http address (anyone with the token controls the workspace)")
	f.StringArrayVar(&hf.workspaces, "workspace", nil, "with --http: serve this workspace too, beside --dir's (repeatable; the web app's sidebar switches between them)")
	return cmd
}
