//go:build linux && !amd64

package sandbox

import "golang.org/x/sys/unix"

// haveCloneVM: on this architecture supervisors are forked (a copy of
// the helper's memory each), as cloneVM is written for amd64 only.
const haveCloneVM = false

// cloneVM is not available here; nothing calls it (haveCloneVM).
func cloneVM(flags, stack uintptr, pl *forkPlan, entry uintptr) (pid, errno uintptr) {
	return 0, uintptr(unix.ENOSYS)
}
