package sandbox

import (
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper (helper_linux.go) starts each command without starting this
// program again: it forks itself. Go cannot run ordinary code in a forked
// child — only the forking thread exists there, so the scheduler, the
// garbage collector and the signal handlers must never run — so the
// child's work is done by the functions below, which, like the standard
// library's own fork and exec, make raw system calls only: they are
// nosplit (the stack never grows; the linker checks the frames fit), do
// not allocate or write pointers, and run with every signal blocked.
// Everything they need is prepared beforehand in a forkPlan.
//
// (Built-ins that call into the runtime — copy, append, map access — are
// out too: under the race detector even copy reports to the race runtime,
// whose locks may be held by a thread the child does not have.)
//
// The forked child is the command's supervisor: the init of a new PID
// namespace, in a new mount namespace with its own /proc. It confines
// itself (no_new_privs, Landlock, no capabilities, seccomp), forks the
// command, and reaps until the command ends, then exits with its status;
// the kernel ends whatever the command left behind.

// forkPlan is what a forked supervisor and its command need, as raw
// pointers and numbers into memory the parent keeps alive.
type forkPlan struct {
	procSrc, procDir, procType *byte // "proc", "/proc", "proc"
	// The command: its working directory (0: the helper's), executable,
	// arguments and environment, as addresses of C strings and string
	// arrays — numbers, so a spare can fill them in without the write
	// barrier; keep holds what they point into alive.
	dir, path, argv, envv uintptr
	keep                  []any
	ruleset, rulesetFlags uintptr
	capHdr                *unix.CapUserHeader
	capData               *[2]unix.CapUserData
	archFilter, filter    *unix.SockFprog
	// supStack and cmdStack, when set, are the tops of the stacks the
	// supervisor and its command's process start on, sharing the
	// helper's memory (cloneVM); else each is forked with a copy.
	supStack, cmdStack uintptr
	stdio              [3]uintptr
	// status is the command's status socket, started the message that
	// tells the parent the supervisor runs (the kernel adds its pid).
	status  uintptr
	started *unix.Msghdr
	taken   *unix.Msghdr // a spare's "run": it has its command
	// spare, when set, makes the supervisor a spare: its command is not
	// known yet and arrives on status (see spareCommand).
	spare *spareBuf
	// failure messages, written to the command's stderr before exit 126
	msgs [failSteps]*failMsg
	// sigaction buffers of the command's process (its own copy)
	sigact, sigdfl [4]uint64
}

// failMsg is a prepared failure message.
type failMsg struct {
	p *byte
	n uintptr
}

func newFailMsg(text string) *failMsg {
	b := []byte(text)
	return &failMsg{p: &b[0], n: uintptr(len(b))}
}

// The steps a supervisor can fail at, indexing forkPlan.msgs.
const (
	failSetpgid = iota
	failMountProc
	failChdir
	failNoNewPrivs
	failLandlock
	failCapabilities
	failSeccomp
	failFork
	failExec
	failSteps
)

var failText = [failSteps]string{
	failSetpgid:      "make a process group",
	failMountProc:    "mount /proc",
	failChdir:        "enter the working directory",
	failNoNewPrivs:   "set no_new_privs",
	failLandlock:     "apply Landlock",
	failCapabilities: "drop capabilities",
	failSeccomp:      "load the seccomp filter",
	failFork:         "start the command",
	failExec:         "exec the command",
}

// securebits the supervisor sets and locks (see dropCapabilities).
const lockedSecurebits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<5 | 1<<6 | 1<<7

// newPlan prepares the raw form of one command for a supervisor.
func newPlan(c *helperConfig, path string, argv, env []string, dir string, stdio [3]int, status int) (*forkPlan, error) {
	pl := basePlan(c, status)
	pl.stdio = [3]uintptr{uintptr(stdio[0]), uintptr(stdio[1]), uintptr(stdio[2])}
	d, err := syscall.BytePtrFromString(dir)
	if err != nil {
		return nil, err
	}
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return nil, err
	}
	av, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return nil, err
	}
	ev, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return nil, err
	}
	pl.keep = []any{d, p, av, ev}
	pl.dir, pl.path = uintptr(unsafe.Pointer(d)), uintptr(unsafe.Pointer(p))
	pl.argv, pl.envv = uintptr(unsafe.Pointer(&av[0])), uintptr(unsafe.Pointer(&ev[0]))
	pl.msgs[failExec] = newFailMsg("openseek sandbox: exec " + path + " failed; the command was not run (errno ")
	return pl, nil
}

// basePlan is what every supervisor of the helper needs: the confinement
// the helper prepared, its status socket and the "started" it sends there.
func basePlan(c *helperConfig, status int) *forkPlan {
	pl := &forkPlan{
		status: uintptr(status), started: messageHdr(helperStarted),
		ruleset: uintptr(c.ruleset), rulesetFlags: uintptr(c.rulesetFlags), capHdr: &c.capHdr, capData: &c.capData,
		archFilter: c.archFilter, filter: c.filter,
		procSrc: c.proc, procDir: c.procDir, procType: c.proc,
		msgs: c.msgs,
	}
	pl.msgs[failExec] = newFailMsg("openseek sandbox: exec failed; the command was not run (errno ")
	return pl
}

// messageHdr is a sendmsg header for the one-message text.
func messageHdr(text string) *unix.Msghdr {
	b := []byte(text)
	iov := &unix.Iovec{Base: &b[0]}
	iov.SetLen(len(b))
	hdr := &unix.Msghdr{Iov: iov}
	hdr.SetIovlen(1)
	return hdr
}

// forkSupervisor forks a supervisor for pl in new PID and mount
// namespaces and returns its pid (in this process's namespace). The
// calling goroutine must be locked to its thread.
//
//go:norace
func forkSupervisor(pl *forkPlan) (pid int, err error) {
	var all, old uint64 = ^uint64(0), 0
	// Block every signal on this thread across the fork: the child must
	// never run the runtime's handlers. It inherits the mask.
	if _, _, e := syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&all)), uintptr(unsafe.Pointer(&old)), 8, 0, 0); e != 0 {
		return 0, e
	}
	const flags = unix.CLONE_NEWPID | unix.CLONE_NEWNS | uintptr(unix.SIGCHLD)
	var r uintptr
	var e syscall.Errno
	if pl.supStack != 0 {
		var errno uintptr
		r, errno = cloneVM(unix.CLONE_VM|flags, pl.supStack, pl, vmSupervisorPC)
		e = syscall.Errno(errno)
	} else if r, e = rawClone(flags); r == 0 && e == 0 {
		supervisor(pl) // never returns
	}
	syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	runtime.KeepAlive(pl)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// rawClone is clone(2) with fork semantics (no new stack).
//
//go:nosplit
//go:norace
func rawClone(flags uintptr) (uintptr, syscall.Errno) {
	r, _, e := syscall.RawSyscall6(unix.SYS_CLONE, flags, 0, 0, 0, 0, 0)
	return r, e
}

// The entries of cloneVM's children: the code addresses their func
// values hold, which are the functions' entries in Go's internal ABI.
var (
	vmSupervisorPC = codePC(vmSupervisor)
	vmCommandPC    = codePC(vmCommand)
)

func codePC(f func(*forkPlan)) uintptr {
	return **(**uintptr)(unsafe.Pointer(&f))
}

// vmSupervisor is a supervisor's start on its own stack (cloneVM).
//
//go:nosplit
//go:norace
func vmSupervisor(pl *forkPlan) { supervisor(pl) }

// vmCommand is the start of a supervisor's child, the command's process:
// a spare's waits for its command first. It never returns. The failure
// report is made here, not in the functions it calls: under fuzzing's
// coverage instrumentation the deeper chain passed the linker's nosplit
// limit (the fork path runs all this on the supervisor's frame).
//
//go:nosplit
//go:norace
func vmCommand(pl *forkPlan) {
	if pl.spare != nil {
		if step, e := spareReceive(pl); e != 0 {
			fail(pl, step, e)
		}
	}
	fail(pl, failExec, command(pl))
}

// supervisor runs in the child, sharing the helper's memory (cloneVM)
// or a copy of it (rawClone). It never returns.
//
//go:nosplit
//go:norace
func supervisor(pl *forkPlan) {
	if _, _, e := syscall.RawSyscall(unix.SYS_SETPGID, 0, 0, 0); e != 0 {
		fail(pl, failSetpgid, e)
	}
	// The parent learns the supervisor's pid, as it sees it, from the
	// credentials the kernel adds to this message.
	syscall.RawSyscall(unix.SYS_SENDMSG, pl.status, uintptr(unsafe.Pointer(pl.started)), unix.MSG_NOSIGNAL)
	// A kernel that refuses a new /proc (parts of the host's hidden, as
	// in some containers) leaves the helper's, as a cold sandbox does.
	const procFlags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if _, _, e := syscall.RawSyscall6(unix.SYS_MOUNT, uintptr(unsafe.Pointer(pl.procSrc)), uintptr(unsafe.Pointer(pl.procDir)), uintptr(unsafe.Pointer(pl.procType)), procFlags, 0, 0); e != 0 && e != unix.EPERM && e != unix.EACCES {
		fail(pl, failMountProc, e)
	}
	if pl.dir != 0 {
		if _, _, e := syscall.RawSyscall(unix.SYS_CHDIR, pl.dir, 0, 0); e != 0 {
			fail(pl, failChdir, e)
		}
	}
	if _, _, e := syscall.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); e != 0 {
		fail(pl, failNoNewPrivs, e)
	}
	if _, _, e := syscall.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, pl.ruleset, pl.rulesetFlags, 0); e != 0 {
		fail(pl, failLandlock, e)
	}
	dropCapsRaw(pl)
	if pl.archFilter != nil {
		if _, _, e := syscall.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(pl.archFilter))); e != 0 {
			fail(pl, failSeccomp, e)
		}
	}
	if _, _, e := syscall.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(pl.filter))); e != 0 {
		fail(pl, failSeccomp, e)
	}
	// A stop asked for before the command exists ends the supervisor
	// instead: the command would not get it.
	var pending uint64
	syscall.RawSyscall(unix.SYS_RT_SIGPENDING, uintptr(unsafe.Pointer(&pending)), 8, 0)
	for _, s := range [...]uintptr{uintptr(unix.SIGTERM), uintptr(unix.SIGINT), uintptr(unix.SIGHUP), uintptr(unix.SIGQUIT)} {
		if pending&(1<<(s-1)) != 0 {
			exit(128 + s)
		}
	}
	var child uintptr
	if pl.cmdStack != 0 {
		r, errno := cloneVM(unix.CLONE_VM|uintptr(unix.SIGCHLD), pl.cmdStack, pl, vmCommandPC)
		if errno != 0 {
			fail(pl, failFork, syscall.Errno(errno))
		}
		child = r
	} else {
		r, e := rawClone(uintptr(unix.SIGCHLD))
		if e != 0 {
			fail(pl, failFork, e)
		}
		if r == 0 {
			vmCommand(pl) // never returns
		}
		child = r
	}
	// The supervisor keeps no descriptor but the status socket: the
	// output pipe ends with the command (and whatever it left behind).
	if pl.status > 0 {
		syscall.RawSyscall(unix.SYS_CLOSE_RANGE, 0, pl.status-1, 0)
	}
	syscall.RawSyscall(unix.SYS_CLOSE_RANGE, pl.status+1, ^uintptr(0)>>32, 0)
	for {
		var status int32
		pid, _, e := syscall.RawSyscall6(unix.SYS_WAIT4, ^uintptr(0), uintptr(unsafe.Pointer(&status)), unix.WALL, 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			exit(exitSetupFailed)
		}
		if pid != child {
			continue // an orphan of the command, reaped as init must
		}
		code := uintptr(0)
		if sig := uintptr(status & 0x7f); sig == 0 {
			code = uintptr(status>>8) & 0xff
		} else if sig != 0x7f {
			code = 128 + sig
		} else {
			continue
		}
		// Tell the parent at once, rather than through the helper
		// reaping this process: one wake-up less per command.
		sendExit(pl, code)
		exit(code)
	}
}

// Spares: the helper forks a supervisor, with its command's process,
// before the command is known; the agent then hands the command straight
// to that process, which only has to exec it. A spare's request is one
// message on the status socket with the command's stdin, stdout and
// stderr: two little-endian uint32 counts (arguments, environment
// entries), then NUL-terminated strings: the directory, the path, the
// arguments and the environment.

// spareTaken is a spare's answer to its command.
const spareTaken = "run"

// Bounds of a spare's command; a bigger one goes through the helper.
const (
	maxSpareRequest = 128 << 10
	maxSpareArgs    = 4096
	maxSpareEnv     = 4096
)

// spareBuf is where a spare receives its command: filled by the kernel
// and the raw code, so its pointers are kept as plain numbers.
type spareBuf struct {
	req  [maxSpareRequest]byte
	oob  [64]byte
	iov  unix.Iovec
	hdr  unix.Msghdr
	argv [maxSpareArgs + 1]uintptr
	env  [maxSpareEnv + 1]uintptr
}

// newSpareBuf is a spareBuf ready to receive into. The helper keeps
// those of ended spares for the next: a new one costs an allocation of
// 190 KiB, its zeroing and its page faults.
func newSpareBuf() *spareBuf {
	sb := &spareBuf{}
	sb.iov.Base = &sb.req[0]
	sb.iov.SetLen(len(sb.req))
	sb.hdr.Iov = &sb.iov
	sb.hdr.SetIovlen(1)
	sb.hdr.Control = &sb.oob[0]
	return sb
}

// newSparePlan prepares a spare whose command arrives on status, into sb.
func newSparePlan(c *helperConfig, status int, sb *spareBuf) *forkPlan {
	pl := basePlan(c, status)
	pl.spare, pl.taken = sb, messageHdr(spareTaken)
	pl.stdio = [3]uintptr{2, 2, 2} // until the command's arrive
	return pl
}

// spareReceive runs in a spare's command process: it waits for the
// command and fills in pl, enters the command's directory, and returns
// for command to exec it. A parent that hangs up first ends it quietly;
// a request it cannot take returns the failed step for vmCommand to
// report.
//
//go:nosplit
//go:norace
func spareReceive(pl *forkPlan) (step int, e syscall.Errno) {
	sb := pl.spare
	var n uintptr
	for {
		sb.hdr.Controllen = uint64(len(sb.oob))
		r, _, e := syscall.RawSyscall(unix.SYS_RECVMSG, pl.status, uintptr(unsafe.Pointer(&sb.hdr)), unix.MSG_CMSG_CLOEXEC)
		if e == unix.EINTR {
			continue
		}
		if e != 0 || r == 0 {
			exit(0)
		}
		n = r
		break
	}
	// One SCM_RIGHTS message with three descriptors.
	oob := &sb.oob
	clen := uintptr(oob[0]) | uintptr(oob[1])<<8 | uintptr(oob[2])<<16 | uintptr(oob[3])<<24
	level := uint32(oob[8]) | uint32(oob[9])<<8 | uint32(oob[10])<<16 | uint32(oob[11])<<24
	typ := uint32(oob[12]) | uint32(oob[13])<<8 | uint32(oob[14])<<16 | uint32(oob[15])<<24
	if uint64(sb.hdr.Controllen) < 16+12 || clen < 16+12 || level != unix.SOL_SOCKET || typ != unix.SCM_RIGHTS {
		exit(exitSetupFailed)
	}
	for i := uintptr(0); i < 3; i++ {
		o := 16 + 4*i
		pl.stdio[i] = uintptr(oob[o]) | uintptr(oob[o+1])<<8 | uintptr(oob[o+2])<<16 | uintptr(oob[o+3])<<24
	}
	req := &sb.req
	if n < 8 {
		return failExec, unix.EINVAL
	}
	argc := uintptr(req[0]) | uintptr(req[1])<<8 | uintptr(req[2])<<16 | uintptr(req[3])<<24
	envc := uintptr(req[4]) | uintptr(req[5])<<8 | uintptr(req[6])<<16 | uintptr(req[7])<<24
	if argc < 1 || argc > maxSpareArgs || envc > maxSpareEnv {
		return failExec, unix.E2BIG
	}
	// The strings: dir, path, argc arguments, envc variables.
	at := uintptr(8)
	dir := at
	if at = skipString(req, at, n); at == 0 {
		return failExec, unix.EINVAL
	}
	path := at
	if at = skipString(req, at, n); at == 0 {
		return failExec, unix.EINVAL
	}
	base := uintptr(unsafe.Pointer(&req[0]))
	for i := uintptr(0); i < argc; i++ {
		sb.argv[i] = base + at
		if at = skipString(req, at, n); at == 0 {
			return failExec, unix.EINVAL
		}
	}
	sb.argv[argc] = 0
	for i := uintptr(0); i < envc; i++ {
		sb.env[i] = base + at
		if at = skipString(req, at, n); at == 0 {
			return failExec, unix.EINVAL
		}
	}
	sb.env[envc] = 0
	pl.dir, pl.path = base+dir, base+path
	pl.argv = uintptr(unsafe.Pointer(&sb.argv[0]))
	pl.envv = uintptr(unsafe.Pointer(&sb.env[0]))
	// Tell the parent the command is taken: from here on it is as good
	// as started, and a spare that dies before this never ran it.
	syscall.RawSyscall(unix.SYS_SENDMSG, pl.status, uintptr(unsafe.Pointer(pl.taken)), unix.MSG_NOSIGNAL)
	if _, _, e := syscall.RawSyscall(unix.SYS_CHDIR, pl.dir, 0, 0); e != 0 {
		return failChdir, e
	}
	return 0, 0
}

// skipString returns the offset after the NUL-terminated string at at in
// req[:n], or 0 when it is not terminated.
//
//go:nosplit
//go:norace
func skipString(req *[maxSpareRequest]byte, at, n uintptr) uintptr {
	for i := at; i < n; i++ {
		if req[i] == 0 {
			return i + 1
		}
	}
	return 0
}

// sendExit sends "exit" and the wait status this supervisor is about to
// end with (code<<8) on the status socket, as the helper would.
//
//go:nosplit
//go:norace
func sendExit(pl *forkPlan, code uintptr) {
	// No copy(): under the race detector it calls into the race runtime,
	// which must never run in a forked child.
	var buf [24]byte
	buf[0], buf[1], buf[2], buf[3] = 'e', 'x', 'i', 't'
	n := 5
	ws := code << 8
	var digits [12]byte
	i := len(digits)
	for {
		i--
		digits[i] = byte('0' + ws%10)
		ws /= 10
		if ws == 0 {
			break
		}
	}
	for ; i < len(digits); i++ {
		buf[n] = digits[i]
		n++
	}
	iov := unix.Iovec{Base: &buf[0], Len: uint64(n)}
	hdr := unix.Msghdr{Iov: &iov, Iovlen: 1}
	syscall.RawSyscall(unix.SYS_SENDMSG, pl.status, uintptr(unsafe.Pointer(&hdr)), unix.MSG_NOSIGNAL)
}

// dropCapsRaw is dropCapabilities in raw system calls.
//
//go:nosplit
//go:norace
func dropCapsRaw(pl *forkPlan) {
	for c := uintptr(0); ; c++ {
		_, _, e := syscall.RawSyscall6(unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, c, 0, 0, 0, 0)
		if e == unix.EINVAL {
			break
		}
		if e != 0 {
			fail(pl, failCapabilities, e)
		}
	}
	if _, _, e := syscall.RawSyscall6(unix.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0); e != 0 {
		fail(pl, failCapabilities, e)
	}
	if _, _, e := syscall.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_SECUREBITS, lockedSecurebits, 0, 0, 0, 0); e != 0 {
		fail(pl, failCapabilities, e)
	}
	if _, _, e := syscall.RawSyscall(unix.SYS_CAPSET, uintptr(unsafe.Pointer(pl.capHdr)), uintptr(unsafe.Pointer(pl.capData)), 0); e != 0 {
		fail(pl, failCapabilities, e)
	}
}

// command runs in the supervisor's child: it puts the command's
// descriptors in place, closes every other, gives the signals back their
// default handling and execs the command. It returns only when that
// failed, with the error for vmCommand to report (failExec).
//
//go:nosplit
//go:norace
func command(pl *forkPlan) syscall.Errno {
	for i, fd := range pl.stdio {
		if _, _, e := syscall.RawSyscall(unix.SYS_DUP3, fd, uintptr(i), 0); e != 0 {
			return e
		}
	}
	syscall.RawSyscall(unix.SYS_CLOSE_RANGE, 3, ^uintptr(0)>>32, 0)
	act, zero := &pl.sigact, &pl.sigdfl
	for s := uintptr(1); s <= 64; s++ {
		if s == uintptr(unix.SIGKILL) || s == uintptr(unix.SIGSTOP) {
			continue
		}
		if _, _, e := syscall.RawSyscall6(unix.SYS_RT_SIGACTION, s, 0, uintptr(unsafe.Pointer(act)), 8, 0, 0); e != 0 || act[0] == 1 /* SIG_IGN */ {
			continue // an ignored signal stays ignored, as exec keeps it
		}
		syscall.RawSyscall6(unix.SYS_RT_SIGACTION, s, uintptr(unsafe.Pointer(zero)), 0, 8, 0, 0)
	}
	var none uint64
	syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&none)), 0, 8, 0, 0)
	_, _, e := syscall.RawSyscall(unix.SYS_EXECVE, pl.path, pl.argv, pl.envv)
	return e
}

// fail writes step's message and the error number to the command's
// stderr (fd 2 once in place, else the descriptor it will be) and exits
// with exitSetupFailed.
//
//go:nosplit
//go:norace
func fail(pl *forkPlan, step int, e syscall.Errno) {
	fd := pl.stdio[2]
	if step == failExec {
		fd = 2
	}
	// Indexes that need no bounds check: a nosplit chain must not reach
	// the panic path, whose frames would pass the linker's limit.
	m := pl.msgs[uint(step)%failSteps]
	syscall.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(m.p)), m.n)
	var buf [8]byte // an errno has at most 4 digits, then ")\n"
	buf[7], buf[6] = '\n', ')'
	i := uint(6)
	for n := uint(e) % 10000; ; n /= 10 {
		i--
		buf[i%8] = byte('0' + n%10)
		if n < 10 {
			break
		}
	}
	syscall.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&buf[i%8])), uintptr(8-i))
	exit(exitSetupFailed)
}

//go:nosplit
//go:norace
func exit(code uintptr) {
	for {
		syscall.RawSyscall(unix.SYS_EXIT_GROUP, code, 0, 0)
	}
}
