package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
)

// frameRate is how often Bubble Tea's renderer wakes to write a changed
// frame. It wakes that often whatever happens, so it is the UI's idle
// cost: at its default of 60 the process spent about 8 ms of CPU a second
// doing nothing (bench/tui-idle.sh), at 30 half of it, while a key still
// reaches the screen within a frame (33 ms) and a stream looks as smooth.
const frameRate = 30

// Run opens the first session and runs the UI until the user quits or
// ctx ends (SIGTERM). Bubble Tea restores the terminal on every way out,
// a panic included; the session is closed after it.
func Run(ctx context.Context, b Backend, o Options, in io.Reader, out io.Writer) error {
	conn, err := b.Open(ctx, o.Open)
	if err != nil {
		return err
	}
	m := New(ctx, b, conn, o)
	var opts []tea.ProgramOption
	if in != nil {
		opts = append(opts, tea.WithInput(in))
	}
	if out != nil {
		opts = append(opts, tea.WithOutput(out))
	}
	p := tea.NewProgram(m, append(opts, tea.WithFPS(frameRate))...)
	// The end of ctx quits the program as the user would, not by killing
	// it (tea.WithContext): a kill closes the terminal reader while its
	// goroutine may still be reading it (a data race in cancelreader that
	// the race detector caught on SIGTERM), a quit waits for that
	// goroutine first.
	stop := context.AfterFunc(ctx, p.Quit)
	_, err = p.Run()
	stop()
	id := m.conn.ID()
	cerr := m.Close()
	if o.ResumeHint != nil && id != "" && (err == nil || ctx.Err() != nil) {
		w := out
		if w == nil {
			w = os.Stdout
		}
		// After the program: the terminal is back on its main screen.
		fmt.Fprintf(w, "Resume this session: %s\n", o.ResumeHint(id))
	}
	switch {
	case ctx.Err() != nil && (err == nil || errors.Is(err, tea.ErrProgramKilled)):
		return nil // a signal ended the UI: the terminal is restored
	case errors.Is(err, tea.ErrProgramPanic):
		return fmt.Errorf("the terminal UI crashed (the terminal was restored; the session log is intact): %w", err)
	case err != nil:
		return err
	}
	return cerr
}
