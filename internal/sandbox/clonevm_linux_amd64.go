package sandbox

import "unsafe"

// haveCloneVM: supervisors and their commands' processes share the
// helper's memory until the command's exec, rather than each copying it.
const haveCloneVM = true

// cloneVM is in clonevm_linux_amd64.s.
func cloneVM(flags, stack uintptr, pl *forkPlan, entry uintptr) (pid, errno uintptr)

// The entries of cloneVM's children.
var (
	vmSupervisorPC = codePC(vmSupervisor)
	vmCommandPC    = codePC(vmCommand)
)

// codePC is the code address a func value of f holds: f's entry in Go's
// internal ABI.
func codePC(f func(*forkPlan)) uintptr {
	return **(**uintptr)(unsafe.Pointer(&f))
}

func cloneVMSupervisor(flags, stack uintptr, pl *forkPlan) (pid, errno uintptr) {
	return cloneVM(flags, stack, pl, vmSupervisorPC)
}
