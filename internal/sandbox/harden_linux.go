package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls are refused with EPERM inside the sandbox: everything that
// changes the mount table (the read-only binds over .git and .openseek
// must stay), makes or joins namespaces (a fresh user namespace would hand
// back every capability), inspects or patches other processes, or reaches
// into the kernel (BPF, perf, keyrings, modules, kexec).
var deniedSyscalls = []string{
	"mount", "umount2", "pivot_root", "chroot",
	"open_tree", "move_mount", "mount_setattr",
	"fsopen", "fsmount", "fsconfig", "fspick",
	"unshare", "setns",
	"ptrace", "process_vm_readv", "process_vm_writev",
	"bpf", "perf_event_open",
	"keyctl", "add_key", "request_key",
	"userfaultfd",
	"init_module", "finit_module", "delete_module",
	"kexec_load", "kexec_file_load",
	"swapon", "swapoff", "reboot", "acct", "quotactl",
}

// newNamespaceFlags are the clone flags that make a namespace; clone with
// any of them is refused. (CLONE_NEWTIME is left out: in clone's first
// argument its bit is part of the exit signal.)
const newNamespaceFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID |
	unix.CLONE_NEWNET | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWCGROUP

// seccompPolicy is the filter every sandboxed command runs under.
func seccompPolicy() seccomp.Policy {
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: seccomp.ActionErrno, Names: deniedSyscalls},
			{Action: seccomp.ActionErrno, NamesWithCondtions: []seccomp.NameWithConditions{{
				Name: "clone",
				Conditions: seccomp.ArgumentConditions{
					{Argument: 0, Operation: seccomp.BitsSet, Value: newNamespaceFlags},
				},
			}}},
			// clone3 passes its flags in memory a filter cannot read:
			// ENOSYS makes the C library fall back to clone, whose flags
			// the rule above checks.
			{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"clone3"}},
		},
	}
}

// seccompProgram is the filter of seccompPolicy assembled to BPF. It is
// built once per process, by the parent (the library's system call tables
// take milliseconds to build), and handed to every sandbox child.
var seccompProgram = sync.OnceValues(func() ([]unix.SockFilter, error) {
	pol := seccompPolicy()
	insts, err := pol.Assemble()
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, err
	}
	prog := make([]unix.SockFilter, len(raw))
	for i, in := range raw {
		prog[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	return prog, nil
})

// loadSeccomp installs prog (from seccompProgram) on the calling thread,
// which must be locked to its goroutine and already have no_new_privs. A
// first filter refuses system calls made through another architecture's
// entry point (the 32-bit int 0x80 gate on x86-64), which the library's
// filter lets through unchecked.
func loadSeccomp(prog []unix.SockFilter) error {
	if len(prog) == 0 {
		return errors.New("seccomp: no filter was handed over")
	}
	if err := loadNativeArchOnly(); err != nil {
		return fmt.Errorf("seccomp architecture filter: %w", err)
	}
	if err := loadFilter(prog); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}

func loadFilter(filter []unix.SockFilter) error {
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return errno
	}
	return nil
}

// loadNativeArchOnly installs nativeArchFilter.
func loadNativeArchOnly() error {
	filter, err := nativeArchFilter()
	if err != nil || filter == nil {
		return err
	}
	return loadFilter(filter)
}

// nativeArchFilter is a three-instruction filter: the native architecture
// passes on to the next filter, any other gets ENOSYS. It is nil for an
// architecture without a second system call gate.
func nativeArchFilter() ([]unix.SockFilter, error) {
	native, ok := auditArch()
	if !ok {
		return nil, nil
	}
	prog, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: native, SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
	})
	if err != nil {
		return nil, err
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	return filter, nil
}

// dropCapabilities leaves the calling thread, and everything it starts,
// without any capability and unable to regain one: the bounding set is
// emptied, ambient capabilities cleared, the securebits that would give
// root (uid 0 in the namespace) capabilities again on exec set and
// locked, and the permitted, effective and inheritable sets zeroed.
func dropCapabilities() error {
	for c := 0; ; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the last capability this kernel knows
		}
		if err != nil {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	// <linux/securebits.h>: noroot, no_setuid_fixup and
	// no_cap_ambient_raise, each with its lock, and keep_caps locked off.
	const (
		noRoot, noRootLocked             = 1 << 0, 1 << 1
		noSetuidFixup, noSetuidFixupLock = 1 << 2, 1 << 3
		keepCapsLocked                   = 1 << 5
		noAmbientRaise, noAmbientLocked  = 1 << 6, 1 << 7
	)
	const bits = noRoot | noRootLocked | noSetuidFixup | noSetuidFixupLock |
		keepCapsLocked | noAmbientRaise | noAmbientLocked
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, bits, 0, 0, 0); err != nil {
		return fmt.Errorf("lock securebits: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear capabilities: %w", err)
	}
	return nil
}

// auditArch is the seccomp architecture token of this build; false for an
// architecture without a second system call gate to close.
func auditArch() (uint32, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, true
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, true
	}
	return 0, false
}
