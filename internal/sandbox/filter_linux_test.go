package sandbox

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestSeccompFilterDecisions runs the filter in a BPF machine over
// seccomp_data records. The machine loads words big-endian, as packet
// filters do, so the records are written that way: the loads then see
// what the kernel's native loads see.
func TestSeccompFilterDecisions(t *testing.T) {
	for _, network := range []bool{true, false} {
		t.Run(fmt.Sprintf("network=%v", network), func(t *testing.T) { testFilterDecisions(t, network) })
	}
}

func testFilterDecisions(t *testing.T, network bool) {
	prog, err := seccompFilter(network)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bpf.Assemble(prog); err != nil {
		t.Fatalf("assemble: %v", err)
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	native, _ := auditArch()
	flagsArg := uint32(0)
	if runtime.GOARCH == "s390x" {
		flagsArg = 1
	}
	// decide runs the filter on a call with the low halves of its first
	// arguments.
	decide := func(arch, nr uint32, args ...uint32) uint32 {
		data := make([]byte, 64)
		binary.BigEndian.PutUint32(data[0:], nr)
		binary.BigEndian.PutUint32(data[4:], arch)
		for i, a := range args {
			binary.BigEndian.PutUint32(data[argAt(uint32(i)):], a)
		}
		got, err := vm.Run(data)
		if err != nil {
			t.Fatalf("run nr %d: %v", nr, err)
		}
		return uint32(got)
	}
	clone := func(flags uint32) uint32 {
		args := make([]uint32, flagsArg+1)
		args[flagsArg] = flags
		return decide(native, unix.SYS_CLONE, args...)
	}
	for _, d := range deniedSyscalls {
		if got := decide(native, d.nr); got != retEPERM {
			t.Errorf("%s: %#x, want EPERM", d.name, got)
		}
	}
	for name, nr := range map[string]uint32{"read": unix.SYS_READ, "write": unix.SYS_WRITE, "execve": unix.SYS_EXECVE, "wait4": unix.SYS_WAIT4, "openat": unix.SYS_OPENAT, "connect": unix.SYS_CONNECT} {
		if got := decide(native, nr); got != retAllow {
			t.Errorf("%s: %#x, want allowed", name, got)
		}
	}
	if got := clone(uint32(unix.SIGCHLD)); got != retAllow {
		t.Errorf("fork-like clone: %#x, want allowed", got)
	}
	if got := clone(unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND); got != retAllow {
		t.Errorf("thread clone: %#x, want allowed", got)
	}
	for _, flag := range []uint32{unix.CLONE_NEWUSER, unix.CLONE_NEWNS, unix.CLONE_NEWPID, unix.CLONE_NEWNET, unix.CLONE_NEWUTS, unix.CLONE_NEWIPC, unix.CLONE_NEWCGROUP} {
		if got := clone(flag | uint32(unix.SIGCHLD)); got != retEPERM {
			t.Errorf("clone with %#x: %#x, want EPERM", flag, got)
		}
	}
	if got := decide(native, unix.SYS_CLONE3); got != retENOSYS {
		t.Errorf("clone3: %#x, want ENOSYS", got)
	}
	if got := decide(native^1, unix.SYS_READ); got != retENOSYS {
		t.Errorf("another architecture's read: %#x, want ENOSYS", got)
	}
	if runtime.GOARCH == "amd64" {
		if got := decide(native, 0x40000000|unix.SYS_READ); got != retENOSYS {
			t.Errorf("x32 read: %#x, want ENOSYS", got)
		}
	}

	// Sockets: all with network; without, no UNIX socket but a
	// connected stream or seqpacket pair, and no io_uring.
	refused := func(want uint32) uint32 {
		if network {
			return retAllow
		}
		return want
	}
	for _, c := range []struct {
		name string
		nr   uint32
		args []uint32
		want uint32
	}{
		{"socket inet", unix.SYS_SOCKET, []uint32{unix.AF_INET, unix.SOCK_STREAM}, retAllow},
		{"socket inet6", unix.SYS_SOCKET, []uint32{unix.AF_INET6, unix.SOCK_DGRAM}, retAllow},
		{"socket netlink", unix.SYS_SOCKET, []uint32{unix.AF_NETLINK, unix.SOCK_RAW}, retAllow},
		{"socket unix stream", unix.SYS_SOCKET, []uint32{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC}, refused(retEACCES)},
		{"socket unix dgram", unix.SYS_SOCKET, []uint32{unix.AF_UNIX, unix.SOCK_DGRAM}, refused(retEACCES)},
		{"socket vsock", unix.SYS_SOCKET, []uint32{unix.AF_VSOCK, unix.SOCK_STREAM}, refused(retEACCES)},
		{"socketpair unix stream", unix.SYS_SOCKETPAIR, []uint32{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK}, retAllow},
		{"socketpair unix seqpacket", unix.SYS_SOCKETPAIR, []uint32{unix.AF_UNIX, unix.SOCK_SEQPACKET}, retAllow},
		{"socketpair unix dgram", unix.SYS_SOCKETPAIR, []uint32{unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC}, refused(retEACCES)},
		{"socketpair inet", unix.SYS_SOCKETPAIR, []uint32{unix.AF_INET, unix.SOCK_STREAM}, refused(retEACCES)},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP, nil, refused(retENOSYS)},
	} {
		if got := decide(native, c.nr, c.args...); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}
