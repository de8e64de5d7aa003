//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
)

// Detect reports that nothing is available: the sandbox needs Linux.
func Detect() Support { return Support{} }

// Wrap fails: the sandbox needs Linux.
func (p Policy) Wrap(cmd *exec.Cmd) error {
	return errors.New("the OS sandbox needs Linux; this system is " + runtime.GOOS)
}

// Main does nothing outside Linux.
func Main() {}

// Try fails: the sandbox needs Linux.
func (p Policy) Try(ctx context.Context) error { return p.Wrap(nil) }

// Process is a command started in the sandbox; there is none here.
type Process struct{}

// Pid is 0: nothing runs.
func (p *Process) Pid() int { return 0 }

// Wait fails: the sandbox needs Linux.
func (p *Process) Wait() (int, error) { return -1, (Policy{}).Wrap(nil) }

// Start fails: the sandbox needs Linux.
func (p Policy) Start(cmd *exec.Cmd) (*Process, error) { return nil, p.Wrap(cmd) }

// Prepare fails: the sandbox needs Linux.
func (p Policy) Prepare() error { return p.Wrap(nil) }

// Release does nothing outside Linux.
func (p Policy) Release() {}

// Shutdown does nothing outside Linux.
func Shutdown() {}

// Hides is "" outside Linux: there is no sandbox to hide anything.
func (p Policy) Hides(string) string { return "" }
