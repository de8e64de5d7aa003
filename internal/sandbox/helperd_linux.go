package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper's side: [Main] builds the sandbox's namespaces and mounts
// once (runChild up to the confinement of a single command), then
// serveHelper prepares the Landlock ruleset, the seccomp filters and the
// capability sets every command gets, reports "ready" on the control
// socket at helperFD and serves commands until the parent hangs up. Each
// command arrives as one message with its stdin, stdout, stderr and a
// status socket; the helper forks its supervisor (fork_linux.go), sends
// "started" with a pidfd of the supervisor on the status socket, and
// "exit" with the wait status when the supervisor ends.

// helperFD is the control socket's descriptor in a helper (ExtraFiles[0]).
const helperFD = 3

// The helper's messages (SOCK_SEQPACKET: one each). A failure carries its
// reason after a NUL, an exit its wait status.
const (
	helperReady   = "ready"
	helperFailed  = "fail"
	helperStarted = "started"
	helperExit    = "exit"
	helperSecrets = "secrets" // the answer to a secrets check
)

// maxHelperRequest bounds a command handed to a helper; a bigger one (a
// huge heredoc) takes a sandbox of its own instead.
const maxHelperRequest = 256 << 10

// helperMode is set in a helper once its payload is decoded.
var helperMode bool

// helperRequest is a command for the helper.
type helperRequest struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// Probe marks Prepare's test command, which needs no private caches
	// and must leave the workspace as it was.
	Probe bool `json:"probe,omitempty"`
}

// reportHelper sends one message to the parent on the control socket;
// outside a helper it does nothing.
func reportHelper(kind, detail string) {
	if helperMode {
		sendMessage(helperFD, kind, detail, nil)
	}
}

// sendMessage sends kind (and detail after a NUL) on the socket fd, with
// the descriptors in fds. The peer may be gone: nobody is left to tell.
func sendMessage(fd int, kind, detail string, fds []int) {
	msg := kind
	if detail != "" {
		msg += "\x00" + detail
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	_ = unix.Sendmsg(fd, []byte(msg), oob, nil, unix.MSG_NOSIGNAL)
}

// parseMessage splits a message into its kind and detail.
func parseMessage(b []byte) (kind, detail string) {
	kind, detail, _ = strings.Cut(string(b), "\x00")
	return kind, detail
}

// helperConfig is what the helper prepares once for all its commands.
type helperConfig struct {
	pol           Policy
	ruleset       int
	rulesetFlags  uint32
	capHdr        unix.CapUserHeader
	capData       [2]unix.CapUserData
	archFilter    *unix.SockFprog // nil without a second system call gate
	filter        *unix.SockFprog
	keep          [][]unix.SockFilter // the programs the two point into
	cacheVars     []string            // the private caches' variables
	proc, procDir *byte               // "proc", "/proc"
	msgs          [failSteps]*failMsg // failure messages (but exec's)
}

func newHelperConfig(pol Policy, prog []unix.SockFilter) (*helperConfig, error) {
	if len(prog) == 0 {
		return nil, errors.New("seccomp: no filter was handed over")
	}
	fd, flags, err := writeRuleset(pol)
	if err != nil {
		return nil, err
	}
	c := &helperConfig{pol: pol, ruleset: fd, rulesetFlags: flags}
	c.capHdr.Version = unix.LINUX_CAPABILITY_VERSION_3
	arch, err := nativeArchFilter()
	if err != nil {
		return nil, fmt.Errorf("seccomp architecture filter: %w", err)
	}
	if arch != nil {
		c.archFilter = &unix.SockFprog{Len: uint16(len(arch)), Filter: &arch[0]}
	}
	c.filter = &unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	c.keep = [][]unix.SockFilter{arch, prog}
	if c.proc, err = syscall.BytePtrFromString("proc"); err != nil {
		return nil, err
	}
	if c.procDir, err = syscall.BytePtrFromString("/proc"); err != nil {
		return nil, err
	}
	c.cacheVars = cacheVars(pol.CacheDir)
	for i, what := range failText {
		c.msgs[i] = newFailMsg("openseek sandbox: " + what + " failed; the command was not run (errno ")
	}
	return c, nil
}

// helper serves the commands of one sandbox. Its goroutine (locked to
// its thread by runChild) forks; reap waits for the supervisors.
type helper struct {
	cfg     *helperConfig
	mu      sync.Mutex
	running map[int]supervised // by the supervisor's pid
	// cloneVM: supervisors share this process's memory (see fork).
	cloneVM bool
	// What ended supervisors leave for the next (under mu).
	freeStacks []*vmStack
	freeBufs   []*spareBuf
	kick       chan struct{}

	// readOnly are the paths kept read-only; protected those bound so
	// far. A path that appears later (a command ran `git init`) is
	// protected before the next command starts.
	readOnly  []string
	protected map[string]bool
	// cacheLater: the private caches are made for the first command
	// that is not a probe.
	cacheLater bool
	// secrets hides the secret files created after the start (nil:
	// the policy hides none).
	secrets *secretWatch
}

// serveHelper runs in a helper whose namespaces and mounts are built. It
// returns only on failure; a parent that hangs up ends the helper (and
// with it, as the PID namespace's init, every command still running).
// proxyFD (-1: none) is the network proxy's listener, handed to the
// parent with "ready".
func serveHelper(pol Policy, prog []unix.SockFilter, readOnly, protected []string, cacheLater bool, proxyFD int, secrets *secretWatch) error {
	cfg, err := newHelperConfig(pol, prog)
	if err != nil {
		return err
	}
	if cacheLater {
		cfg.cacheVars = nil
	}
	h := &helper{cfg: cfg, running: map[int]supervised{}, kick: make(chan struct{}, 1),
		readOnly: readOnly, protected: map[string]bool{}, cacheLater: cacheLater, secrets: secrets,
		cloneVM: haveCloneVM && os.Getenv(ForkEnv) == ""}
	for _, p := range protected {
		h.protected[p] = true
	}
	// A supervisor is its command's PID 1 and may share this process's
	// memory (cloneVM): the command must not reach that memory through
	// /proc/1/mem. Not dumpable, it takes CAP_SYS_PTRACE, which commands
	// never have.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make the sandbox helper undumpable: %w", err)
	}
	go h.reap()
	// Every command forks this process: the less memory it holds, the
	// fewer page tables each fork copies and the fewer pages it shares
	// copy-on-write. What start-up allocated is garbage by now.
	debug.FreeOSMemory()
	if proxyFD >= 0 {
		sendMessage(helperFD, helperReady, "", []int{proxyFD})
		unix.Close(proxyFD)
	} else {
		reportHelper(helperReady, "")
	}
	buf := make([]byte, maxHelperRequest)
	oob := make([]byte, unix.CmsgSpace(4*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(helperFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			os.Exit(0) // the parent is gone
		}
		h.serve(buf[:n], oob[:oobn])
	}
}

// serve starts one command. The request's descriptors are stdin, stdout,
// stderr and the status socket; every one is closed here, the status
// socket once the command's end is reported. The supervisor itself says
// "started" on it, so that the parent gets its pid from the kernel.
func (h *helper) serve(msg, oob []byte) {
	fds := receivedFDs(oob)
	if len(fds) == 0 {
		var r struct {
			Spare   bool `json:"spare"`
			Secrets bool `json:"secrets"`
		}
		if json.Unmarshal(msg, &r) == nil {
			switch {
			case r.Spare:
				h.makeSpare()
			case r.Secrets:
				h.checkSecrets()
			}
		}
		return
	}
	if len(fds) != 4 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return // no status socket to answer on
	}
	status := fds[3]
	defer func() {
		for _, fd := range fds[:3] {
			unix.Close(fd)
		}
	}()
	var req helperRequest
	if err := json.Unmarshal(msg, &req); err != nil || req.Path == "" || len(req.Args) == 0 || req.Dir == "" {
		sendMessage(status, helperFailed, fmt.Sprintf("malformed request (%v)", err), nil)
		unix.Close(status)
		return
	}
	if err := h.prepare(req.Probe); err != nil {
		sendMessage(status, helperFailed, err.Error(), nil)
		unix.Close(status)
		return
	}
	pl, err := newPlan(h.cfg, req.Path, req.Args, withVars(req.Env, h.cfg.cacheVars), req.Dir, [3]int{fds[0], fds[1], fds[2]}, status)
	if err != nil {
		sendMessage(status, helperFailed, err.Error(), nil)
		unix.Close(status)
		return
	}
	if err := h.fork(pl, status); err != nil {
		sendMessage(status, helperFailed, "start the command's supervisor: "+err.Error(), nil)
		unix.Close(status)
		return
	}
	h.wake()
}

// spareInfo tells the parent what a spare was built with, so that it
// can tell a spare made stale by what happened since.
type spareInfo struct {
	Protected []string `json:"protected"` // read-only paths bound in it
	Vars      []string `json:"vars"`      // the private caches' variables
	Caches    bool     `json:"caches"`    // whether it has the private caches
	Hidden    int      `json:"hidden"`    // the secret files hidden by then (secretWatch.hidden)
}

// hidden is the number of secret files hidden since the start.
func (h *helper) hidden() int {
	if h.secrets == nil {
		return 0
	}
	return h.secrets.hidden
}

// checkSecrets hides the secret files created since the last command
// and answers the parent, about to hand a command to a spare, with
// how many were hidden so far: a spare made with fewer lacks a mask.
func (h *helper) checkSecrets() {
	if h.secrets != nil {
		if err := h.secrets.catchUp(); err != nil {
			reportHelper(helperFailed, err.Error())
			return
		}
	}
	reportHelper(helperSecrets, strconv.Itoa(h.hidden()))
}

// makeSpare forks a spare (a supervisor and its command's process, the
// command yet to come) and sends the parent its end of the spare's status
// socket ("spare" and a spareInfo), or "nospare" and why.
func (h *helper) makeSpare() {
	if err := h.prepare(false); err != nil {
		reportHelper("nospare", err.Error())
		return
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		reportHelper("nospare", err.Error())
		return
	}
	parent, spare := fds[0], fds[1]
	// The supervisor's "started" carries its pid for the parent.
	if err := unix.SetsockoptInt(parent, unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		unix.Close(parent)
		unix.Close(spare)
		reportHelper("nospare", err.Error())
		return
	}
	h.mu.Lock()
	buf := h.spareBuf()
	h.mu.Unlock()
	if err := h.fork(newSparePlan(h.cfg, spare, buf), spare); err != nil {
		unix.Close(parent)
		unix.Close(spare)
		reportHelper("nospare", "start a spare supervisor: "+err.Error())
		return
	}
	info := spareInfo{Vars: h.cfg.cacheVars, Caches: !h.cacheLater, Hidden: h.hidden()}
	for p := range h.protected {
		info.Protected = append(info.Protected, p)
	}
	data, _ := json.Marshal(info)
	sendMessage(helperFD, "spare", string(data), []int{parent})
	unix.Close(parent)
	h.wake()
}

// ForkEnv, set to anything in the environment of the program that calls
// [Main], makes its sandbox helpers fork each supervisor and command
// process (a copy of the helper's memory each) rather than share the
// helper's memory with them until the command's exec: the way of
// architectures other than amd64, and a way round a kernel that
// mishandles the shared one.
const ForkEnv = "OPENSEEK_SANDBOX_FORK"

// supervised is a running supervisor: its status socket, and what it
// and its command's process use until they end.
type supervised struct {
	status int
	pl     *forkPlan
	stack  *vmStack
}

// vmStack holds the two stacks of a supervisor that shares the helper's
// memory: the supervisor's and its command's process's until its exec.
// The code on them is nosplit: the linker bounds its frames far below
// this.
type vmStack [2][16 << 10]byte

// top is the highest 16-byte-aligned address of stack i.
func (s *vmStack) top(i int) uintptr {
	return (uintptr(unsafe.Pointer(&s[i][0])) + uintptr(len(s[i]))) &^ 15
}

// fork starts pl's supervisor and records it as running (status is its
// status socket). With cloneVM it shares this process's memory: it and
// its command's process start on stacks of their own, and pl and the
// stacks stay untouched here until reap has seen it end. When it cannot
// start, the stacks and pl's spare buffer are kept for the next.
func (h *helper) fork(pl *forkPlan, status int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var st *vmStack
	if h.cloneVM {
		if n := len(h.freeStacks); n > 0 {
			st, h.freeStacks = h.freeStacks[n-1], h.freeStacks[:n-1]
		} else {
			st = new(vmStack)
		}
		pl.supStack, pl.cmdStack = st.top(0), st.top(1)
	}
	sv := supervised{status: status, pl: pl, stack: st}
	pid, err := forkSupervisor(pl)
	if err != nil {
		h.release(sv)
		return err
	}
	h.running[pid] = sv
	return nil
}

// release keeps an ended supervisor's stacks and spare buffer for the
// next (with mu held).
func (h *helper) release(sv supervised) {
	if sv.stack != nil {
		h.freeStacks = append(h.freeStacks, sv.stack)
	}
	if sv.pl.spare != nil {
		h.freeBufs = append(h.freeBufs, sv.pl.spare)
	}
}

// spareBuf is a buffer for a new spare's command (with mu held).
func (h *helper) spareBuf() *spareBuf {
	if n := len(h.freeBufs); n > 0 {
		b := h.freeBufs[n-1]
		h.freeBufs = h.freeBufs[:n-1]
		return b
	}
	return newSpareBuf()
}

// prepare brings the sandbox up to date before a command: the private
// caches on the first command that needs them, and read-only binds over
// protected paths that have appeared since the last command.
func (h *helper) prepare(probe bool) error {
	if h.cacheLater && !probe {
		pol := h.cfg.pol
		if err := os.MkdirAll(pol.CacheDir, 0o700); err != nil {
			return fmt.Errorf("private caches: %w", err)
		}
		if err := h.protectNew(); err != nil {
			return err
		}
		pol, err := privateCaches(pol)
		if err != nil {
			return err
		}
		fd, flags, err := writeRuleset(pol)
		if err != nil {
			return err
		}
		unix.Close(h.cfg.ruleset)
		h.cfg.ruleset, h.cfg.rulesetFlags = fd, flags
		h.cfg.cacheVars = cacheVars(pol.CacheDir)
		h.cacheLater = false
	}
	if err := h.protectNew(); err != nil {
		return err
	}
	if h.secrets != nil {
		return h.secrets.catchUp()
	}
	return nil
}

// protectNew protects the read-only paths that exist now but did not
// when they were last looked at.
func (h *helper) protectNew() error {
	for _, p := range h.readOnly {
		if h.protected[p] || !exists(p) {
			continue
		}
		if _, err := protect([]string{p}); err != nil {
			return err
		}
		h.protected[p] = true
	}
	return nil
}

// wake tells reap that a supervisor was forked.
func (h *helper) wake() {
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// receivedFDs are the descriptors that came with a message.
func receivedFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for i := range msgs {
		got, err := unix.ParseUnixRights(&msgs[i])
		if err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

// reap waits for supervisors to end and reports each one's wait status
// on its status socket.
func (h *helper) reap() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WALL, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.ECHILD) {
			<-h.kick // nothing runs: wait for the next command
			continue
		}
		if err != nil {
			return
		}
		h.mu.Lock()
		sv, ok := h.running[pid]
		delete(h.running, pid)
		if ok {
			// Its command's process has ended too (or exec'd): a PID
			// namespace's init ends after all its processes.
			h.release(sv)
		}
		h.mu.Unlock()
		if ok {
			sendMessage(sv.status, helperExit, strconv.FormatUint(uint64(*(*uint32)(unsafe.Pointer(&ws))), 10), nil)
			unix.Close(sv.status)
		}
	}
}

// decodeStatus is a wait status as a shell reports it: the exit code, or
// 128+N for death by signal N.
func decodeStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
