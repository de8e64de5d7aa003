//go:build unix

package lsp

import (
	"os/exec"
	"syscall"
)

// killGroup kills the server's whole process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
	}
}
