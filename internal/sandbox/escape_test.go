package sandbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// escapeHelper is the variable that makes the test binary, started as a
// sandboxed command, try the escapes in escapeAttempts instead of running
// tests; its value is the workspace.
const escapeHelper = "OPENSEEK_SANDBOX_TEST_ESCAPE"

// escapeAttempts are the calls a command would use to get past the
// read-only .git and .openseek mounts, leave its namespaces or reach into
// the kernel. Each returns the call's error; nil means it worked.
func escapeAttempts(ws string) []struct {
	name string
	try  func() error
} {
	git := filepath.Join(ws, ".git")
	return []struct {
		name string
		try  func() error
	}{
		{"open_tree clone", func() error {
			fd, err := unix.OpenTree(unix.AT_FDCWD, ws, unix.OPEN_TREE_CLONE)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}},
		{"mount_setattr read-write", func() error {
			return unix.MountSetattr(-1, git, 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY})
		}},
		{"mount remount read-write", func() error {
			return unix.Mount("", git, "", unix.MS_REMOUNT|unix.MS_BIND, "")
		}},
		{"mount tmpfs over .git", func() error { return unix.Mount("tmpfs", git, "tmpfs", 0, "") }},
		{"umount2 .git", func() error { return unix.Unmount(git, unix.MNT_DETACH) }},
		{"move_mount", func() error {
			return unix.MoveMount(unix.AT_FDCWD, git, unix.AT_FDCWD, filepath.Join(ws, "moved"), 0)
		}},
		{"fsopen", func() error {
			fd, err := unix.Fsopen("tmpfs", 0)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}},
		{"fspick", func() error {
			fd, err := unix.Fspick(unix.AT_FDCWD, git, 0)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}},
		{"pivot_root", func() error { return unix.PivotRoot(ws, git) }},
		{"unshare user", func() error { return unix.Unshare(unix.CLONE_NEWUSER) }},
		{"unshare mount", func() error { return unix.Unshare(unix.CLONE_NEWNS) }},
		{"setns", func() error { return unix.Setns(0, 0) }},
		{"clone new user", func() error {
			_, _, e := unix.RawSyscall6(unix.SYS_CLONE, unix.CLONE_NEWUSER|uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
			return errnoErr(e)
		}},
		{"clone3", func() error {
			args := struct{ flags, pidfd, childTID, parentTID, exitSignal, stack, stackSize, tls uint64 }{flags: unix.CLONE_NEWUSER, exitSignal: uint64(unix.SIGCHLD)}
			_, _, e := unix.RawSyscall(unix.SYS_CLONE3, uintptr(unsafe.Pointer(&args)), unsafe.Sizeof(args), 0)
			return errnoErr(e)
		}},
		{"ptrace attach", func() error { return unix.PtraceAttach(1) }},
		{"bpf", func() error {
			_, _, e := unix.Syscall(unix.SYS_BPF, 0, 0, 0)
			return errnoErr(e)
		}},
		{"perf_event_open", func() error {
			_, err := unix.PerfEventOpen(&unix.PerfEventAttr{Type: unix.PERF_TYPE_SOFTWARE, Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{}))}, 0, -1, -1, 0)
			return err
		}},
		{"keyctl", func() error {
			_, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_SESSION_KEYRING, 0, 0, 0)
			return err
		}},
		{"userfaultfd", func() error {
			_, _, e := unix.Syscall(unix.SYS_USERFAULTFD, 0, 0, 0)
			return errnoErr(e)
		}},
		{"init_module", func() error { return unix.InitModule(nil, "") }},
		{"kexec_file_load", func() error { return unix.KexecFileLoad(-1, -1, "", 0) }},
		// Without network: no UNIX socket (a host's would be reachable
		// wherever it lives), no datagram pair (sendto names any socket),
		// no io_uring (its operations make sockets past seccomp), no
		// vsock (the hypervisor's host).
		{"socket AF_UNIX", func() error { return closeSocket(unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)) }},
		{"socket AF_UNIX datagram", func() error { return closeSocket(unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)) }},
		{"socket AF_VSOCK", func() error { return closeSocket(unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM, 0)) }},
		{"socketpair datagram", func() error {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
			if err == nil {
				unix.Close(fds[0])
				unix.Close(fds[1])
			}
			return err
		}},
		{"io_uring_setup", func() error {
			var params [120]byte // struct io_uring_params
			fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
			if e == 0 {
				unix.Close(int(fd))
			}
			return errnoErr(e)
		}},
		{"write .git/hooks", func() error {
			return os.WriteFile(filepath.Join(git, "hooks-post-commit"), []byte("#!/bin/sh\n"), 0o755)
		}},
	}
}

// closeSocket closes the socket a call made, and returns its error.
func closeSocket(fd int, err error) error {
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// allowedCalls are calls a sandboxed command without network keeps: the
// escape helper reports them as "name: ok".
var allowedCalls = []struct {
	name string
	try  func() error
}{
	{"socketpair stream", func() error {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		if _, err := unix.Write(fds[0], []byte("x")); err != nil {
			return err
		}
		buf := make([]byte, 1)
		_, err = unix.Read(fds[1], buf)
		return err
	}},
	{"socket AF_INET", func() error { return closeSocket(unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)) }},
}

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// runEscapes is the helper: it prints one line per attempt, "name: ok" or
// "name: refused (error)".
func runEscapes(ws string) {
	for _, a := range append(escapeAttempts(ws), allowedCalls...) {
		if err := a.try(); err != nil {
			fmt.Printf("%s: refused (%v)\n", a.name, err)
		} else {
			fmt.Printf("%s: ok\n", a.name)
		}
	}
}

// TestEscapesRefused runs the escape attempts as a sandboxed command: each
// must be refused, and .git must be unchanged afterwards.
func TestEscapesRefused(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	exe := testBinary(t, ws)
	out, code := run(t, &pol, ws, escapeHelper+"="+ws+" "+exe)
	if code != 0 {
		t.Fatalf("helper exit %d:\n%s", code, out)
	}
	for _, a := range escapeAttempts(ws) {
		line := a.name + ": refused"
		if !strings.Contains(out, line) {
			t.Errorf("%s was not refused:\n%s", a.name, out)
		}
	}
	for _, a := range allowedCalls {
		if !strings.Contains(out, a.name+": ok\n") {
			t.Errorf("%s failed in the sandbox:\n%s", a.name, out)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "hooks-post-commit")); err == nil {
		t.Errorf("the command planted a hook")
	}
}

// TestNoCapabilities checks the command's credentials: no capability in
// any set, seccomp filtering, securebits locked, no_new_privs.
func TestNoCapabilities(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	out, code := run(t, &pol, ws, "grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):' /proc/self/status")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	want := map[string]string{
		"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
		"CapBnd": "0000000000000000", "CapAmb": "0000000000000000",
		"NoNewPrivs": "1", "Seccomp": "2",
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if w, ok := want[k]; ok && strings.TrimSpace(v) != w {
			t.Errorf("%s = %s, want %s", k, strings.TrimSpace(v), w)
		}
		delete(want, k)
	}
	if len(want) > 0 {
		t.Errorf("missing from /proc/self/status: %v\n%s", want, out)
	}
	// Becoming root again in a fresh user namespace is refused too.
	out, code = run(t, &pol, ws, "unshare -r true")
	if code == 0 {
		t.Errorf("unshare -r succeeded:\n%s", out)
	}
}

// testBinary copies this test binary into dir (a workspace: the private
// /tmp of a sandboxed command hides where the go tool keeps it) and
// returns the copy's path.
func testBinary(t *testing.T, dir string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "escape-helper")
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}
