package tui

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"
)

// Run opens the first session and runs the UI until the user quits or
// ctx ends (SIGTERM). Bubble Tea restores the terminal on every way out,
// a panic included; the session is closed after it.
func Run(ctx context.Context, b Backend, o Options, in io.Reader, out io.Writer) error {
	conn, err := b.Open(ctx, o.Open)
	if err != nil {
		return err
	}
	m := New(ctx, b, conn, o)
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if in != nil {
		opts = append(opts, tea.WithInput(in))
	}
	if out != nil {
		opts = append(opts, tea.WithOutput(out))
	}
	_, err = tea.NewProgram(m, opts...).Run()
	cerr := m.Close()
	switch {
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return nil // a signal ended the UI: the terminal is restored
	case errors.Is(err, tea.ErrProgramPanic):
		return fmt.Errorf("the terminal UI crashed (the terminal was restored; the session log is intact): %w", err)
	case err != nil:
		return err
	}
	return cerr
}
