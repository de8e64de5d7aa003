package sandbox

import (
	"os/exec"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Detect probes the kernel: the Landlock ABI version, and whether a child
// can be started in new user, network and mount namespaces (by starting
// `true` in them, since a multi-threaded Go process cannot unshare a user
// namespace itself). It takes a few milliseconds.
func Detect() Support {
	var s Support
	if v, err := llsys.LandlockGetABIVersion(); err == nil && v > 0 {
		s.Landlock = v
	}
	if probe(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID) {
		s.UserNS, s.NetNS, s.MountNS = true, true, true
		return s
	}
	if !probe(syscall.CLONE_NEWUSER) {
		return s
	}
	s.UserNS = true
	s.NetNS = probe(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET)
	s.MountNS = probe(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS)
	return s
}

// probe reports whether `true` runs in new namespaces of the given kinds.
func probe(flags uintptr) bool {
	path, err := exec.LookPath("true")
	if err != nil {
		path = "/bin/true"
	}
	cmd := exec.Command(path)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setNamespaces(cmd.SysProcAttr, flags)
	return cmd.Run() == nil
}
