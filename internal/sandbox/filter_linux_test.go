package sandbox

import (
	"encoding/binary"
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
	prog, err := seccompFilter()
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
	flagsAt := 16
	if runtime.GOARCH == "s390x" {
		flagsAt += 8
	}
	decide := func(arch, nr uint32, flags uint32) uint32 {
		data := make([]byte, 64)
		binary.BigEndian.PutUint32(data[0:], nr)
		binary.BigEndian.PutUint32(data[4:], arch)
		if bigEndian() {
			binary.BigEndian.PutUint32(data[flagsAt+4:], flags)
		} else {
			binary.BigEndian.PutUint32(data[flagsAt:], flags)
		}
		got, err := vm.Run(data)
		if err != nil {
			t.Fatalf("run nr %d: %v", nr, err)
		}
		return uint32(got)
	}
	for _, d := range deniedSyscalls {
		if got := decide(native, d.nr, 0); got != retEPERM {
			t.Errorf("%s: %#x, want EPERM", d.name, got)
		}
	}
	for name, nr := range map[string]uint32{"read": unix.SYS_READ, "write": unix.SYS_WRITE, "execve": unix.SYS_EXECVE, "wait4": unix.SYS_WAIT4, "openat": unix.SYS_OPENAT} {
		if got := decide(native, nr, 0); got != retAllow {
			t.Errorf("%s: %#x, want allowed", name, got)
		}
	}
	if got := decide(native, unix.SYS_CLONE, uint32(unix.SIGCHLD)); got != retAllow {
		t.Errorf("fork-like clone: %#x, want allowed", got)
	}
	if got := decide(native, unix.SYS_CLONE, unix.CLONE_VM|unix.CLONE_THREAD|unix.CLONE_SIGHAND); got != retAllow {
		t.Errorf("thread clone: %#x, want allowed", got)
	}
	for _, flag := range []uint32{unix.CLONE_NEWUSER, unix.CLONE_NEWNS, unix.CLONE_NEWPID, unix.CLONE_NEWNET, unix.CLONE_NEWUTS, unix.CLONE_NEWIPC, unix.CLONE_NEWCGROUP} {
		if got := decide(native, unix.SYS_CLONE, flag|uint32(unix.SIGCHLD)); got != retEPERM {
			t.Errorf("clone with %#x: %#x, want EPERM", flag, got)
		}
	}
	if got := decide(native, unix.SYS_CLONE3, 0); got != retENOSYS {
		t.Errorf("clone3: %#x, want ENOSYS", got)
	}
	if got := decide(native^1, unix.SYS_READ, 0); got != retENOSYS {
		t.Errorf("another architecture's read: %#x, want ENOSYS", got)
	}
	if runtime.GOARCH == "amd64" {
		if got := decide(native, 0x40000000|unix.SYS_READ, 0); got != retENOSYS {
			t.Errorf("x32 read: %#x, want ENOSYS", got)
		}
	}
}
