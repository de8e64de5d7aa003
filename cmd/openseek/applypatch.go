package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
)

// applyPatchCmd is `openseek apply-patch [PATCH]`: the apply_patch tool
// for people and scripts, applied in --dir (the current directory).
func (c *cli) applyPatchCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "apply-patch [PATCH]",
		Short: "Apply a patch in Codex's *** Begin Patch format (argument or stdin) to the current directory",
		Long: `Apply a patch in the apply_patch format (*** Begin Patch … *** End Patch:
Add File, Delete File, Update File with optional Move to, @@ context chunks,
*** End of File) to the files under --dir (default: the current directory).
The patch is the one argument, or standard input without one. Every hunk is
checked before any file is written: a patch that fails anywhere changes
nothing. Prints the files it added (A), modified (M) and deleted (D).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var text string
			if len(args) == 1 {
				text = args[0]
			} else {
				if isTerminal(c.stdin) {
					return errors.New("a patch is required: openseek apply-patch \"$(cat change.patch)\", or pipe it on stdin")
				}
				b, err := io.ReadAll(c.stdin)
				if err != nil {
					return fmt.Errorf("read the patch from stdin: %w", err)
				}
				text = string(b)
			}
			if strings.TrimSpace(text) == "" {
				return errors.New("the patch is empty: give it as the argument or on stdin")
			}
			summary, err := engine.ApplyPatchProgram(c.workDir(), text)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, summary)
			return nil
		},
	}
}
