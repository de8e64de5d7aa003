//go:build unix && !linux

package lsp

import "syscall"

// procAttr puts a server in its own process group.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
