//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup makes cmd the leader of a new process group, so that
// killGroup reaches the helpers it spawns (npx → node, uvx → python).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to what is left of the process group led by
// pid. Once the leader has exited its pid still names the group until the
// last member is gone.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
