package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls are refused with EPERM inside the sandbox: everything that
// changes the mount table (the read-only binds over .git and .openseek
// must stay), makes or joins namespaces (a fresh user namespace would hand
// back every capability), inspects or patches other processes, or reaches
// into the kernel (BPF, perf, keyrings, modules, kexec). The names are for
// people (doc.go, the README); the numbers are this architecture's.
var deniedSyscalls = []struct {
	name string
	nr   uint32
}{
	{"mount", unix.SYS_MOUNT}, {"umount2", unix.SYS_UMOUNT2}, {"pivot_root", unix.SYS_PIVOT_ROOT}, {"chroot", unix.SYS_CHROOT},
	{"open_tree", unix.SYS_OPEN_TREE}, {"move_mount", unix.SYS_MOVE_MOUNT}, {"mount_setattr", unix.SYS_MOUNT_SETATTR},
	{"fsopen", unix.SYS_FSOPEN}, {"fsmount", unix.SYS_FSMOUNT}, {"fsconfig", unix.SYS_FSCONFIG}, {"fspick", unix.SYS_FSPICK},
	{"unshare", unix.SYS_UNSHARE}, {"setns", unix.SYS_SETNS},
	{"ptrace", unix.SYS_PTRACE}, {"process_vm_readv", unix.SYS_PROCESS_VM_READV}, {"process_vm_writev", unix.SYS_PROCESS_VM_WRITEV},
	{"bpf", unix.SYS_BPF}, {"perf_event_open", unix.SYS_PERF_EVENT_OPEN},
	{"keyctl", unix.SYS_KEYCTL}, {"add_key", unix.SYS_ADD_KEY}, {"request_key", unix.SYS_REQUEST_KEY},
	{"userfaultfd", unix.SYS_USERFAULTFD},
	{"init_module", unix.SYS_INIT_MODULE}, {"finit_module", unix.SYS_FINIT_MODULE}, {"delete_module", unix.SYS_DELETE_MODULE},
	{"kexec_load", unix.SYS_KEXEC_LOAD}, {"kexec_file_load", unix.SYS_KEXEC_FILE_LOAD},
	{"swapon", unix.SYS_SWAPON}, {"swapoff", unix.SYS_SWAPOFF}, {"reboot", unix.SYS_REBOOT}, {"acct", unix.SYS_ACCT}, {"quotactl", unix.SYS_QUOTACTL},
}

// newNamespaceFlags are the clone flags that make a namespace; clone with
// any of them is refused. (CLONE_NEWTIME is left out: in clone's first
// argument its bit is part of the exit signal.)
const newNamespaceFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID |
	unix.CLONE_NEWNET | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWCGROUP

// The actions of the filter.
const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// seccompFilter is the filter every sandboxed command runs under, in
// BPF over struct seccomp_data (nr at 0, arch at 4, args from 16):
// another architecture's calls get ENOSYS (so do x32's on amd64), the
// denied calls and a clone that makes a namespace EPERM, and clone3 —
// whose flags sit in memory a filter cannot read — ENOSYS, on which the
// C library falls back to clone and its checked flags.
func seccompFilter() ([]bpf.Instruction, error) {
	native, ok := auditArch()
	if !ok {
		return nil, fmt.Errorf("no seccomp filter is written for %s", runtime.GOARCH)
	}
	// clone's flags: its first argument but on s390x (second); the low
	// half of the 64-bit slot holds every namespace flag.
	flagsAt := uint32(16)
	if runtime.GOARCH == "s390x" {
		flagsAt += 8
	}
	if bigEndian() {
		flagsAt += 4
	}
	p := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: native, SkipTrue: 1},
		bpf.RetConstant{Val: retENOSYS},
		bpf.LoadAbsolute{Off: 0, Size: 4},
	}
	if runtime.GOARCH == "amd64" {
		const x32 = 0x40000000 // __X32_SYSCALL_BIT
		p = append(p,
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32, SkipTrue: 0, SkipFalse: 1},
			bpf.RetConstant{Val: retENOSYS})
	}
	// Each denied number jumps to the EPERM at the end of the list.
	n := len(deniedSyscalls)
	for i, d := range deniedSyscalls {
		p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: d.nr, SkipTrue: uint8(n - i - 1 + 4)})
	}
	p = append(p,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE3, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE, SkipTrue: 3},
		bpf.RetConstant{Val: retAllow},
		bpf.RetConstant{Val: retENOSYS},
		bpf.RetConstant{Val: retEPERM},
		// clone: refused with a namespace flag.
		bpf.LoadAbsolute{Off: flagsAt, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: newNamespaceFlags, SkipTrue: 1},
		bpf.RetConstant{Val: retAllow},
		bpf.RetConstant{Val: retEPERM},
	)
	return p, nil
}

// bigEndian reports this machine's byte order.
func bigEndian() bool {
	return binary.NativeEndian.Uint16([]byte{0, 1}) == 1
}

// seccompProgram is seccompFilter assembled, once per process, by the
// parent, and handed to every sandbox child.
var seccompProgram = sync.OnceValues(func() ([]unix.SockFilter, error) {
	insts, err := seccompFilter()
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
