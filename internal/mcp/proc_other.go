//go:build !unix

package mcp

import "os/exec"

// ownProcessGroup is a no-op where process groups are not available; the
// SDK's close sequence still stops the direct child.
func ownProcessGroup(*exec.Cmd) {}

func killGroup(int) {}
