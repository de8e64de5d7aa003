package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
)

func (c *cli) editCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "edit [JSON]",
		Short: "The edit tool as a program: one JSON object of edit arguments (argument or stdin)",
		Long: `Run the agent's edit tool once, outside any session (reference §11). The
argument is one JSON object of the tool's arguments, or stdin when none is
given: {"path","old_string","new_string","start_line"?,"end_line"?,
"revert_on_parse_errors"?}. The same decoder, executor and messages as the
in-process tool. Success prints "ok: …" on stdout, exit 0; any failure
prints its message on stderr, exit 1.

Confinement: OPENSEEK_EDIT_ROOT is the writable root (default: the current
directory); nothing outside it is written, through a symlink or "..".
OPENSEEK_EDIT_ALLOWED_PATHS (comma- or list-separated, relative to the
root) narrows the writable paths further.

  openseek edit '{"path":"a.txt","old_string":"two","new_string":"2"}'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return fmt.Errorf("unexpected value '%s' found; no more were expected", args[1])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var raw []byte
			if len(args) == 1 {
				raw = []byte(args[0])
			} else {
				data, err := io.ReadAll(c.stdin)
				if err != nil {
					return fmt.Errorf("read the edit arguments from stdin: %w", err)
				}
				raw = data
			}
			text, err := engine.RunEditProgram(cmd.Context(), raw, c.getenv)
			if f := (*engine.EditFailure)(nil); errors.As(err, &f) {
				fmt.Fprintln(c.stderr, f.Msg)
				return exitError(1)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, text)
			return nil
		},
	}
}
