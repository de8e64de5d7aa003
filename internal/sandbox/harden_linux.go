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
// people (doc.go, docs/safety.md); the numbers are this architecture's.
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
	retEACCES = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
)

// offlineFamilies are the socket families a command without network may
// open: those its empty network namespace confines (no interface is up,
// not even loopback). UNIX sockets are not among them: a pathname
// socket is reached through the file system, which a network namespace
// does not separate, and Landlock does not govern connect(2); so any of
// the host's (docker.sock, an ssh agent, a database's) would be in reach
// wherever it lives. Nor are the families a network namespace does not
// confine, such as AF_VSOCK (the hypervisor's host). A connected pair
// (socketpair) of stream or seqpacket UNIX sockets stays allowed: it
// reaches nothing but its other end. A datagram pair does not, since
// sendto(2) on one can still name any socket on the host.
var offlineFamilies = []uint32{unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK}

// seccompFilter is the filter every sandboxed command runs under, in
// BPF over struct seccomp_data (nr at 0, arch at 4, args from 16):
// another architecture's calls get ENOSYS (so do x32's on amd64), the
// denied calls and a clone that makes a namespace EPERM, and clone3 —
// whose flags sit in memory a filter cannot read — ENOSYS, on which the
// C library falls back to clone and its checked flags. Without network
// (network false) socket(2) of a family but offlineFamilies and
// socketpair(2) but of UNIX stream or seqpacket sockets get EACCES, and
// io_uring, whose operations make and connect sockets past this filter,
// ENOSYS (its users fall back to ordinary calls).
//
// (Architectures whose socket calls also go through socketcall(2) — i386,
// s390x, 32-bit ARM — get no filter at all, so no sandbox: auditArch
// knows amd64 and arm64 only, and on amd64 the 32-bit gate is closed.)
func seccompFilter(network bool) ([]bpf.Instruction, error) {
	native, ok := auditArch()
	if !ok {
		return nil, fmt.Errorf("no seccomp filter is written for %s", runtime.GOARCH)
	}
	// clone's flags: its first argument but on s390x (second); the low
	// half of the 64-bit slot holds every namespace flag.
	flagsAt := argAt(0)
	if runtime.GOARCH == "s390x" {
		flagsAt = argAt(1)
	}
	var f filterAsm
	f.add(bpf.LoadAbsolute{Off: 4, Size: 4})
	f.jump(bpf.JumpNotEqual, native, "enosys")
	f.add(bpf.LoadAbsolute{Off: 0, Size: 4})
	if runtime.GOARCH == "amd64" {
		const x32 = 0x40000000 // __X32_SYSCALL_BIT
		f.jump(bpf.JumpGreaterOrEqual, x32, "enosys")
	}
	for _, d := range deniedSyscalls {
		f.jump(bpf.JumpEqual, d.nr, "eperm")
	}
	if !network {
		f.jump(bpf.JumpEqual, unix.SYS_IO_URING_SETUP, "enosys")
		f.jump(bpf.JumpEqual, unix.SYS_SOCKET, "socket")
		f.jump(bpf.JumpEqual, unix.SYS_SOCKETPAIR, "socketpair")
	}
	f.jump(bpf.JumpEqual, unix.SYS_CLONE3, "enosys")
	f.jump(bpf.JumpEqual, unix.SYS_CLONE, "clone")
	f.add(bpf.RetConstant{Val: retAllow})
	f.label("enosys")
	f.add(bpf.RetConstant{Val: retENOSYS})
	f.label("eperm")
	f.add(bpf.RetConstant{Val: retEPERM})
	// clone: refused with a namespace flag.
	f.label("clone")
	f.add(bpf.LoadAbsolute{Off: flagsAt, Size: 4})
	f.jump(bpf.JumpBitsSet, newNamespaceFlags, "clone-eperm")
	f.add(bpf.RetConstant{Val: retAllow})
	f.label("clone-eperm")
	f.add(bpf.RetConstant{Val: retEPERM})
	if !network {
		f.label("socket")
		f.add(bpf.LoadAbsolute{Off: argAt(0), Size: 4}) // domain
		for _, fam := range offlineFamilies {
			f.jump(bpf.JumpEqual, fam, "socket-allow")
		}
		f.add(bpf.RetConstant{Val: retEACCES})
		f.label("socket-allow")
		f.add(bpf.RetConstant{Val: retAllow})
		f.label("socketpair")
		f.add(bpf.LoadAbsolute{Off: argAt(0), Size: 4}) // domain
		f.jump(bpf.JumpNotEqual, unix.AF_UNIX, "socketpair-eacces")
		f.add(bpf.LoadAbsolute{Off: argAt(1), Size: 4}) // type and its flags
		f.add(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf})
		f.jump(bpf.JumpEqual, unix.SOCK_STREAM, "socketpair-allow")
		f.jump(bpf.JumpEqual, unix.SOCK_SEQPACKET, "socketpair-allow")
		f.label("socketpair-eacces")
		f.add(bpf.RetConstant{Val: retEACCES})
		f.label("socketpair-allow")
		f.add(bpf.RetConstant{Val: retAllow})
	}
	return f.program()
}

// argAt is the offset in seccomp_data of the low 32 bits of system call
// argument i.
func argAt(i uint32) uint32 {
	off := 16 + 8*i
	if bigEndian() {
		off += 4
	}
	return off
}

// filterAsm assembles a filter whose jumps name labels further on (BPF
// jumps only forward).
type filterAsm struct {
	insts  []bpf.Instruction
	jumps  map[int]string // instruction index: the label it jumps to
	labels map[string]int
}

func (f *filterAsm) add(in bpf.Instruction) { f.insts = append(f.insts, in) }

// jump adds a conditional jump to label, falling through otherwise.
func (f *filterAsm) jump(cond bpf.JumpTest, val uint32, label string) {
	if f.jumps == nil {
		f.jumps = map[int]string{}
	}
	f.jumps[len(f.insts)] = label
	f.add(bpf.JumpIf{Cond: cond, Val: val})
}

// label names the next instruction.
func (f *filterAsm) label(name string) {
	if f.labels == nil {
		f.labels = map[string]int{}
	}
	f.labels[name] = len(f.insts)
}

// program resolves the jumps.
func (f *filterAsm) program() ([]bpf.Instruction, error) {
	for at, name := range f.jumps {
		to, ok := f.labels[name]
		skip := to - at - 1
		if !ok || skip < 0 || skip > 255 {
			return nil, fmt.Errorf("seccomp filter: jump from %d to %q (%d) cannot be encoded", at, name, to)
		}
		j := f.insts[at].(bpf.JumpIf)
		j.SkipTrue = uint8(skip)
		f.insts[at] = j
	}
	return f.insts, nil
}

// bigEndian reports this machine's byte order.
func bigEndian() bool {
	return binary.NativeEndian.Uint16([]byte{0, 1}) == 1
}

// seccompPrograms are seccompFilter assembled, once per process and
// kind (network on, off), by the parent, and handed to every sandbox
// child.
var seccompPrograms = [2]func() ([]unix.SockFilter, error){
	sync.OnceValues(func() ([]unix.SockFilter, error) { return assembleFilter(false) }),
	sync.OnceValues(func() ([]unix.SockFilter, error) { return assembleFilter(true) }),
}

// seccompProgram is the assembled filter of commands with or without
// network.
func seccompProgram(network bool) ([]unix.SockFilter, error) {
	if network {
		return seccompPrograms[1]()
	}
	return seccompPrograms[0]()
}

func assembleFilter(network bool) ([]unix.SockFilter, error) {
	insts, err := seccompFilter(network)
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
}

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
