package lsp

import "syscall"

// procAttr puts a server in its own process group and has the kernel
// kill it if this process dies without closing it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
