//go:build !headless

package main

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/server/acp"
)

func (c *cli) acpCmd() *cobra.Command {
	var sysFile, addendum string
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Agent Client Protocol over stdio, for editors (Zed, JetBrains, Neovim)",
		Long: `Speak the Agent Client Protocol (JSON-RPC on stdin/stdout) so an editor can
use OpenSeek as its agent. Each session works in the directory the editor
sends as its cwd (the project root; --dir and --session do not apply);
sessions are recorded there under .openseek/ and can be loaded again. Unless --approval or OPENSEEK_APPROVAL
says otherwise (--approval auto), what the sandbox contains runs unasked and a command that
needs more is asked about in the editor. Diagnostics go to stderr.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected value '%s' found; no more were expected", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			c.interactiveApproval(cmd) // the editor can answer
			opts, err := c.engineOptions(cmd, sysFile, addendum)
			if err != nil {
				return err
			}
			return acp.Serve(cmd.Context(), c.stdin, c.stdout, acp.Options{
				NewHost: func(ctx context.Context, dir string) (*engine.Host, error) {
					o := opts
					o.Dir = dir
					return engine.NewHost(ctx, o)
				},
				Holder:  "openseek acp",
				Version: buildVersion(),
				Log:     slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&sysFile, "system-prompt-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_FILE"), "complete system prompt replacement")
	f.StringVar(&addendum, "system-prompt-addendum-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_ADDENDUM_FILE"), "appended to the system prompt")
	return cmd
}

// buildVersion is the module version the binary was built from ("dev"
// for a source build).
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
