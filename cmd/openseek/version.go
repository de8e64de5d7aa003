package main

import (
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// version is the module version the binary was built from (a tagged
// release, or a pseudo-version with the commit), and "devel" for a build
// from a work tree.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " " + s.Value[:12]
			}
		}
	}
	return v + " " + info.GoVersion
}

func (c *cli) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of OpenSeek",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(c.stdout, "openseek %s\n", version())
			return nil
		},
	}
}

// workspaceFlags are the global flags every command may use: where the
// workspace and its sessions are.
var workspaceFlags = []string{"dir", "session-root", "help"}

// offline lists the commands that never talk to a model: their help shows
// only the workspace flags, not the model and sandbox ones.
var offline = []string{"sessions", "trust", "version", "completion", "help", "rewind", "apply-patch", "inspect", "export"}

// scopeHelp makes the help of offline commands (and their subcommands)
// list only the global flags they read.
func scopeHelp(root *cobra.Command) {
	def := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		top := cmd
		for top.Parent() != nil && top.Parent() != root {
			top = top.Parent()
		}
		if top != root && slices.Contains(offline, top.Name()) {
			var hidden []*pflag.Flag
			cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
				if !f.Hidden && !slices.Contains(workspaceFlags, f.Name) {
					f.Hidden = true
					hidden = append(hidden, f)
				}
			})
			defer func() {
				for _, f := range hidden {
					f.Hidden = false
				}
			}()
		}
		def(cmd, args)
	})
}
