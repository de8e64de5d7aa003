package sandbox

// haveCloneVM: supervisors and their commands' processes share the
// helper's memory until the command's exec, rather than each copying it.
const haveCloneVM = true

// cloneVM is in clonevm_linux_amd64.s.
func cloneVM(flags, stack uintptr, pl *forkPlan, entry uintptr) (pid, errno uintptr)
