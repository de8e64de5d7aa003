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

// Start fails: the sandbox needs Linux.
func (p Policy) Start(cmd *exec.Cmd) error { return p.Wrap(cmd) }

// Prepare fails: the sandbox needs Linux.
func (p Policy) Prepare() error { return p.Wrap(nil) }

// DropSpares does nothing outside Linux.
func DropSpares() {}
