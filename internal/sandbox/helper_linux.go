package sandbox

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Helpers: building a sandbox (starting this program again with its
// namespaces, mounts, Landlock rules and seccomp filter) costs far more
// than the command it usually runs. [Policy.Start] therefore keeps, per
// policy, one long-lived sandbox helper (helperd_linux.go) whose
// namespaces and mounts are built once; for each command it forks a
// supervisor in a fresh PID and mount namespace, which confines itself
// and starts the command (fork_linux.go). A command thus still gets a
// sandbox of its own — its own PID namespace and /proc, taking every
// process it starts with it, its own Landlock domain, no capabilities,
// the seccomp filter — for the price of two forks.
//
// A helper that died (killed from outside) is noticed when the next
// command is handed to it: a new helper is built and takes the command.
// Commands it was running end with it; their Wait says so. A helper that
// cannot be built sends its commands to a sandbox of their own (Wrap),
// which reports the failure in the command's output as always. Nothing
// ever runs outside a sandbox.

// maxHelpers bounds the idle helpers one process keeps (one per policy);
// a helper with commands running is never ended to make room.
const maxHelpers = 4

// helperSetupTimeout bounds the wait for a helper being built.
const helperSetupTimeout = 2 * time.Minute

// client is this process's end of one helper.
type client struct {
	key   string
	cmd   *exec.Cmd
	ctl   *net.UnixConn
	once  sync.Once
	err   error // the build's outcome, after once
	ended sync.Once

	mu      sync.Mutex // serialises requests
	running int        // commands started and not yet ended (under helpers.mu)
	dead    bool       // the helper is gone (under helpers.mu)
	// session: a session's helper, ended by Release, never evicted (its
	// private /tmp would go with it); released: Release was called, and
	// it ends with its last command (both under helpers.mu).
	session, released bool

	// Under mu: a spare ready for the next command, and whether one was
	// asked for and its answer not read yet.
	spare      *spareConn
	spareAsked bool
	buf        [16 << 10]byte // readSpare's
	oob        [24]byte       // room for one descriptor

	// proxy serves the commands' network (Policy.Proxied) on proxyL, the
	// listener the helper sent with "ready"; closed when the helper ends.
	proxy       NetworkProxy
	proxyMu     sync.Mutex
	proxyL      net.Listener
	proxyClosed bool
}

// spareConn is this process's end of a spare's status socket.
type spareConn struct {
	f    *os.File
	info spareInfo
}

// helpers is this process's pool of helpers, by policy key.
var helpers struct {
	mu     sync.Mutex
	byKey  map[string]*client
	order  []string        // keys, least recently used first
	broken map[string]bool // policies whose helper could not be built
}

// Process is a command started by [Policy.Start].
type Process struct {
	pid    int
	cmd    *exec.Cmd // a sandbox of its own
	status *os.File  // a helper's: its end is reported here
	c      *client
	spare  bool // started by a spare: ask for the next when it ends
}

// Pid is the host's process id of the command's supervisor, which leads
// the command's process group: signal -Pid to reach them all.
func (p *Process) Pid() int { return p.pid }

// Wait waits for the command to end and returns its status as a shell
// reports it (128+N for death by signal N). err is set when the status
// is unknown because the sandbox itself died; code is 128+SIGKILL then.
func (p *Process) Wait() (int, error) {
	if p.cmd != nil {
		err := p.cmd.Wait()
		ps := p.cmd.ProcessState
		if ps == nil {
			return -1, err
		}
		return decodeStatus(ps.Sys().(syscall.WaitStatus)), nil
	}
	defer p.status.Close()
	defer p.c.done()
	if p.spare {
		defer func() {
			p.c.mu.Lock()
			p.c.askSpare()
			p.c.mu.Unlock()
		}()
	}
	buf := make([]byte, 256)
	for {
		n, err := p.status.Read(buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err == nil && n > 0 {
			if kind, detail := parseMessage(buf[:n]); kind == helperExit {
				if ws, err := strconv.ParseUint(detail, 10, 32); err == nil {
					return decodeStatus(syscall.WaitStatus(ws)), nil
				}
			}
		}
		return 128 + int(syscall.SIGKILL), errors.New("the sandbox helper ended while the command ran (was it killed?); the next command gets a new one")
	}
}

// Start starts cmd inside the sandbox p describes and returns it; use
// the Process, not cmd, to wait for it. cmd's Stdin, Stdout and Stderr
// must be nil or *os.File, since no goroutine copies them.
//
// The command goes to p's helper when the helper is known good here
// ([StartPath]), its directory lies in the workspace and it asks for no
// process attributes but a process group (the supervisor always makes
// one); otherwise it is wrapped and started as Wrap does.
func (p Policy) Start(cmd *exec.Cmd) (*Process, error) { return p.start(cmd, false) }

// start is Start; a probe (Prepare's test command) gets no private caches
// and leaves the workspace as it was.
func (p Policy) start(cmd *exec.Cmd, probe bool) (*Process, error) {
	for _, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if _, ok := f.(*os.File); f != nil && !ok {
			return nil, errors.New("sandbox: Start needs *os.File (or nil) for stdin, stdout and stderr")
		}
	}
	pol, err := p.validate()
	if err != nil {
		return nil, err
	}
	pol.Proxied = pol.Proxied && pol.Proxy != nil
	if pol.Proxied {
		cmd.Env = proxyEnv(cmd.Env, pol.Proxy)
	}
	var req []byte
	if helper, _ := StartPath(); helper {
		req = helperCommand(pol, cmd, probe)
	}
	if req != nil {
		key, err := policyKey(pol)
		if err != nil {
			return nil, err
		}
		// A helper found dead is replaced once; the command had not
		// started in it, so it is not run twice.
		for range 2 {
			c, err := helperFor(key, pol)
			if err != nil {
				break // cannot be built: a sandbox of its own says why
			}
			// helperFor reserved c for this command: a Process keeps the
			// reservation until it ends, anything else gives it back.
			if !probe {
				if proc, ok, err := c.startSpare(cmd, pol); ok {
					if err != nil {
						c.done()
					}
					return proc, err
				}
			}
			proc, sent, err := c.start(cmd, req)
			if !sent || err != nil {
				c.done()
			}
			if sent {
				return proc, err
			}
		}
	}
	if probe {
		p.CacheDir = ""
	}
	started, err := p.wrap(cmd)
	if err != nil {
		started()
		return nil, err
	}
	err = cmd.Start()
	started()
	if err != nil {
		return nil, err
	}
	return &Process{pid: cmd.Process.Pid, cmd: cmd}, nil
}

// Prepare builds p's helper, if it has none, and runs `true` through it
// in the workspace: a true test that sandboxed commands run here, after
// which the next command starts at once. The error carries the
// sandbox's own explanation.
func (p Policy) Prepare() error {
	path, err := exec.LookPath("true")
	if err != nil {
		path = "/bin/true"
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(path)
	cmd.Dir = p.Workspace
	cmd.Env = FilterEnv(os.Environ(), p.AllowEnv)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	proc, err := p.start(cmd, true)
	w.Close()
	if err != nil {
		return err
	}
	out, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	code, err := proc.Wait()
	switch {
	case err != nil:
		return err
	case code != 0 && len(bytes.TrimSpace(out)) > 0:
		return fmt.Errorf("%s (exit %d)", bytes.TrimSpace(out), code)
	case code != 0:
		return fmt.Errorf("a command in the sandbox failed (exit %d)", code)
	}
	return nil
}

// Shutdown ends every helper of this process that runs no command (they
// also end with the process, however it exits).
func Shutdown() {
	helpers.mu.Lock()
	var idle []*client
	for key, c := range helpers.byKey {
		if c.running == 0 {
			idle = append(idle, c)
			delete(helpers.byKey, key)
			helpers.order = removeKey(helpers.order, key)
		}
	}
	helpers.mu.Unlock()
	for _, c := range idle {
		c.end()
	}
}

// Release ends the sandbox helper of p (of its Session), and with it
// the session's private /tmp, once the commands running in it end; the
// next command of p gets a new one. A session calls it when it closes.
func (p Policy) Release() {
	pol, err := p.validate()
	if err != nil {
		return
	}
	key, err := policyKey(pol)
	if err != nil {
		return
	}
	helpers.mu.Lock()
	c := helpers.byKey[key]
	if c == nil {
		helpers.mu.Unlock()
		return
	}
	delete(helpers.byKey, key)
	helpers.order = removeKey(helpers.order, key)
	c.released = true
	idle := c.running == 0
	helpers.mu.Unlock()
	if idle {
		c.end()
	}
}

// helperCommand is cmd encoded for a helper of pol, or nil when a helper
// cannot take it: its directory must lie in the workspace (a helper
// without network hides the rest of /tmp), it may ask for nothing but a
// process group, and it must fit in one message.
func helperCommand(pol Policy, cmd *exec.Cmd, probe bool) []byte {
	if cmd.Process != nil || cmd.Err != nil || len(cmd.ExtraFiles) > 0 || cmd.Path == "" || len(cmd.Args) == 0 {
		return nil
	}
	if a := cmd.SysProcAttr; a != nil && !onlySetpgid(*a) {
		return nil
	}
	dir := filepath.Clean(cmd.Dir)
	if !filepath.IsAbs(dir) || (dir != pol.Workspace && !strings.HasPrefix(dir, pol.Workspace+"/")) {
		return nil
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	req, err := json.Marshal(helperRequest{Path: cmd.Path, Args: cmd.Args, Env: withoutVar(env, childEnv), Dir: dir, Probe: probe})
	if err != nil || len(req) > maxHelperRequest {
		return nil
	}
	return req
}

// onlySetpgid reports whether a asks for nothing but a process group.
func onlySetpgid(a syscall.SysProcAttr) bool {
	a.Setpgid = false
	return reflect.ValueOf(a).IsZero()
}

// policyKey names a validated policy in the pool.
func policyKey(pol Policy) (string, error) {
	b, err := json.Marshal(pol)
	return string(b), err
}

// helperFor returns key's helper, built and ready, building one when
// there is none (or it died), reserved for one command: the caller gives
// the reservation to the command's Process or back with done.
func helperFor(key string, pol Policy) (*client, error) {
	helpers.mu.Lock()
	if helpers.broken[key] {
		helpers.mu.Unlock()
		return nil, errors.New("the sandbox helper cannot be built")
	}
	c := helpers.byKey[key]
	if c == nil || c.dead {
		var err error
		if c, err = startHelper(key, pol); err != nil {
			helpers.mu.Unlock()
			return nil, err
		}
		if helpers.byKey == nil {
			helpers.byKey = map[string]*client{}
		}
		helpers.byKey[key] = c
	}
	helpers.order = append(removeKey(helpers.order, key), key)
	// Reserved for the caller's command, so that no other caller ends
	// it to make room while the command is handed over.
	c.running++
	evicted := evict()
	helpers.mu.Unlock()
	for _, e := range evicted {
		e.end()
	}
	if err := c.ready(); err != nil {
		c.done()
		helpers.mu.Lock()
		if helpers.broken == nil {
			helpers.broken = map[string]bool{}
		}
		helpers.broken[key] = true
		if helpers.byKey[key] == c {
			delete(helpers.byKey, key)
			helpers.order = removeKey(helpers.order, key)
		}
		helpers.mu.Unlock()
		c.end()
		return nil, err
	}
	return c, nil
}

// evict removes idle helpers beyond maxHelpers, least recently used
// first, and returns them to be ended; a session's helper is left to
// Release. Called with helpers.mu held.
func evict() []*client {
	var out []*client
	for i := 0; len(helpers.byKey) > maxHelpers && i < len(helpers.order); {
		key := helpers.order[i]
		if c := helpers.byKey[key]; c.running > 0 || c.session {
			i++
			continue
		}
		out = append(out, helpers.byKey[key])
		delete(helpers.byKey, key)
		helpers.order = append(helpers.order[:i:i], helpers.order[i+1:]...)
	}
	return out
}

func removeKey(keys []string, key string) []string {
	for i, k := range keys {
		if k == key {
			return append(keys[:i:i], keys[i+1:]...)
		}
	}
	return keys
}

// startHelper starts building a helper for pol in the workspace; ready
// waits for the build.
func startHelper(key string, pol Policy) (*client, error) {
	if _, inChild := os.LookupEnv(childEnv); inChild || !mainCalled.Load() {
		return nil, errors.New("sandbox: this program did not call sandbox.Main at start, so it cannot run sandboxed commands")
	}
	parent, child, err := socketPair("sandbox-control")
	if err != nil {
		return nil, err
	}
	defer child.Close()
	fc, err := net.FileConn(parent)
	parent.Close()
	if err != nil {
		return nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	ctl := fc.(*net.UnixConn)
	prog, err := seccompProgram(pol.Network)
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("sandbox: assemble the seccomp filter: %w", err)
	}
	data, err := json.Marshal(payload{Policy: pol, Seccomp: prog, Helper: true})
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	cmd := &exec.Cmd{
		Path:       selfExe,
		Args:       []string{"openseek-sandbox-helper"},
		Dir:        pol.Workspace,
		Env:        append(FilterEnv(withoutVar(os.Environ(), childEnv), pol.AllowEnv), childEnv+"="+string(data)),
		ExtraFiles: []*os.File{child},
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid: true,
			// Should this program die, the helper and every command in it
			// die too.
			Pdeathsig: syscall.SIGKILL,
		},
	}
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID)
	if !pol.Network {
		flags |= syscall.CLONE_NEWNET
	}
	setNamespaces(cmd.SysProcAttr, flags)
	proxyCaps(cmd.SysProcAttr, pol)
	if err := cmd.Start(); err != nil {
		ctl.Close()
		return nil, fmt.Errorf("sandbox: start the helper: %w", err)
	}
	c := &client{key: key, cmd: cmd, ctl: ctl, session: pol.Session != ""}
	if pol.Proxied {
		c.proxy = pol.Proxy
	}
	return c, nil
}

// socketPair is a connected pair of SOCK_SEQPACKET sockets, close-on-exec.
func socketPair(name string) (a, b *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %s socket: %w", name, err)
	}
	return os.NewFile(uintptr(fds[0]), name), os.NewFile(uintptr(fds[1]), name), nil
}

// ready waits once for the helper's build: nil when it serves commands,
// else why it could not be built.
func (c *client) ready() error {
	c.once.Do(func() {
		c.ctl.SetReadDeadline(time.Now().Add(helperSetupTimeout))
		buf := make([]byte, 4096)
		oob := make([]byte, unix.CmsgSpace(4))
		n, oobn, _, _, err := c.ctl.ReadMsgUnix(buf, oob)
		c.ctl.SetReadDeadline(time.Time{})
		kind, detail := parseMessage(buf[:n])
		if err == nil && kind == helperReady && c.proxy != nil {
			// The helper's network namespace's listener for the proxy.
			l, err := receivedListener(oob[:oobn])
			if err != nil {
				c.err = fmt.Errorf("the sandbox helper's network proxy listener: %w", err)
				return
			}
			c.proxyMu.Lock()
			c.proxyL = l
			if c.proxyClosed {
				l.Close()
			}
			c.proxyMu.Unlock()
			go c.proxy.Serve(l)
		}
		switch {
		case err != nil:
			c.err = fmt.Errorf("the sandbox helper ended while being built: %w", err)
		case kind == helperFailed:
			c.err = errors.New(detail)
		case kind != helperReady:
			c.err = fmt.Errorf("the sandbox helper said %q while being built", kind)
		}
	})
	return c.err
}

// start hands cmd (encoded as req) to the helper. sent is false when the
// helper was found dead before the command started: it is then marked
// dead, and the caller may build another.
func (c *client) start(cmd *exec.Cmd, req []byte) (proc *Process, sent bool, err error) {
	files, closeFiles, err := stdio(cmd)
	if err != nil {
		return nil, true, err
	}
	defer closeFiles()
	mine, theirs, err := socketPair("sandbox-status")
	if err != nil {
		return nil, true, err
	}
	defer theirs.Close()
	// The supervisor's "started" carries its pid, translated by the
	// kernel into this process's namespace.
	if err := unix.SetsockoptInt(int(mine.Fd()), unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		mine.Close()
		return nil, true, fmt.Errorf("sandbox: status socket: %w", err)
	}
	rights := unix.UnixRights(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()), int(theirs.Fd()))
	c.mu.Lock()
	_, _, err = c.ctl.WriteMsgUnix(req, rights, nil)
	c.mu.Unlock()
	if err != nil {
		mine.Close()
		c.died()
		return nil, false, nil
	}
	theirs.Close()
	buf := make([]byte, 256)
	oob := make([]byte, unix.CmsgSpace(unix.SizeofUcred))
	n, oobn, _, _, err := unix.Recvmsg(int(mine.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
	for errors.Is(err, unix.EINTR) {
		n, oobn, _, _, err = unix.Recvmsg(int(mine.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
	}
	fail := func(err error) (*Process, bool, error) {
		mine.Close()
		return nil, true, err
	}
	if err != nil || n == 0 {
		// It died with the command in hand, before the supervisor said
		// "started" — which it does before it starts the command — so
		// the command never ran: another helper may take it.
		mine.Close()
		c.died()
		return nil, false, nil
	}
	kind, detail := parseMessage(buf[:n])
	if kind == helperFailed {
		return fail(errors.New(detail))
	}
	pid := senderPid(oob[:oobn])
	if kind != helperStarted || pid <= 0 {
		return fail(fmt.Errorf("the sandbox helper said %q (%s)", kind, detail))
	}
	return &Process{pid: pid, status: mine, c: c}, true, nil
}

// senderPid is the pid in the credentials that came with a message.
func senderPid(oob []byte) int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0
	}
	for i := range msgs {
		if cred, err := unix.ParseUnixCredentials(&msgs[i]); err == nil {
			return int(cred.Pid)
		}
	}
	return 0
}

// startSpare hands cmd to the spare the helper built ahead, and asks
// for the next: the command only has to be exec'd. ok is false when there
// was no usable spare (none yet, or one made stale by a path that needs
// protecting since, or one that died): the caller then asks the helper.
func (c *client) startSpare(cmd *exec.Cmd, pol Policy) (proc *Process, ok bool, err error) {
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spareAsked {
		// The helper serves one request at a time and is making the
		// spare, so waiting for it is the quickest way to a sandbox.
		sp, err := c.readSpare()
		if err != nil {
			c.died()
			return nil, false, nil
		}
		c.spareAsked = false
		c.spare = sp
	}
	sp := c.spare
	c.spare = nil
	if sp == nil || sp.stale(pol) || (pol.Secrets != nil && !c.secretsHidden(sp)) {
		if sp != nil {
			sp.f.Close()
		}
		c.askSpare() // for the next command
		return nil, false, nil
	}
	req, fits := encodeSpareRequest(filepath.Clean(cmd.Dir), cmd.Path, cmd.Args, withVars(withoutVar(env, childEnv), sp.info.Vars))
	pid := sp.started()
	if !fits || pid <= 0 {
		sp.f.Close()
		c.askSpare()
		return nil, false, nil
	}
	files, closeFiles, err := stdio(cmd)
	if err != nil {
		sp.f.Close()
		return nil, true, err
	}
	rights := unix.UnixRights(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()))
	err = unix.Sendmsg(int(sp.f.Fd()), req, rights, nil, unix.MSG_NOSIGNAL)
	closeFiles()
	if err != nil || !sp.taken() {
		// It died before it had the command: the command never ran.
		sp.f.Close()
		c.askSpare()
		return nil, false, nil
	}
	// The next spare is asked for once this command ends, so that it is
	// built while the model thinks rather than beside the command.
	return &Process{pid: pid, status: sp.f, c: c, spare: true}, true, nil
}

// secretsHidden has the helper hide the secret files created since its
// last command and reports whether sp was made after the newest of them
// was hidden (with c.mu held; no answer is outstanding). A round trip
// to the helper: tens of microseconds.
func (c *client) secretsHidden(sp *spareConn) bool {
	if _, _, err := c.ctl.WriteMsgUnix([]byte(`{"secrets":true}`), nil, nil); err != nil {
		return false
	}
	n, oobn, _, _, err := c.ctl.ReadMsgUnix(c.buf[:], c.oob[:])
	if err != nil || n == 0 {
		return false
	}
	for _, fd := range receivedFDs(c.oob[:oobn]) {
		unix.Close(fd)
	}
	kind, detail := parseMessage(c.buf[:n])
	hidden, err := strconv.Atoi(detail)
	return kind == helperSecrets && err == nil && hidden <= sp.info.Hidden
}

// askSpare asks the helper for a spare (with c.mu held); the answer is
// read when the next command comes.
func (c *client) askSpare() {
	if c.spareAsked || c.spare != nil {
		return
	}
	if _, _, err := c.ctl.WriteMsgUnix([]byte(`{"spare":true}`), nil, nil); err != nil {
		c.died()
		return
	}
	c.spareAsked = true
}

// readSpare reads the helper's answer to askSpare: a spare, or nil when
// the helper could not make one.
func (c *client) readSpare() (*spareConn, error) {
	n, oobn, _, _, err := c.ctl.ReadMsgUnix(c.buf[:], c.oob[:])
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("the sandbox helper hung up")
	}
	fds := receivedFDs(c.oob[:oobn])
	kind, detail := parseMessage(c.buf[:n])
	if kind != "spare" || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, nil
	}
	sp := &spareConn{f: os.NewFile(uintptr(fds[0]), "sandbox-spare")}
	if err := json.Unmarshal([]byte(detail), &sp.info); err != nil {
		sp.f.Close()
		return nil, nil
	}
	return sp, nil
}

// stale reports whether the spare lacks what the policy needs now: the
// private caches, or a read-only bind over a protected path that has
// appeared since it was made.
func (sp *spareConn) stale(pol Policy) bool {
	if pol.CacheDir != "" && !pol.ReadOnlyWorkspace && !sp.info.Caches {
		return true
	}
	for _, p := range readOnlyPaths(pol) {
		if !slices.Contains(sp.info.Protected, p) && exists(p) {
			return true
		}
	}
	return false
}

// started reads the "started" the spare's supervisor sends first thing
// (waiting for it if the spare is that new) and returns the supervisor's
// pid, or 0 when the spare has died (its end is reported after it).
func (sp *spareConn) started() int {
	fd := int(sp.f.Fd())
	buf := make([]byte, 64)
	oob := make([]byte, unix.CmsgSpace(unix.SizeofUcred))
	n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, 0)
	for errors.Is(err, unix.EINTR) {
		n, oobn, _, _, err = unix.Recvmsg(fd, buf, oob, 0)
	}
	if err != nil || n == 0 {
		return 0
	}
	if kind, _ := parseMessage(buf[:n]); kind != helperStarted {
		return 0
	}
	pid := senderPid(oob[:oobn])
	if _, _, _, _, err := unix.Recvmsg(fd, buf, nil, unix.MSG_DONTWAIT|unix.MSG_PEEK); !errors.Is(err, unix.EAGAIN) {
		return 0 // its end was reported: it died
	}
	return pid
}

// taken waits for the spare's "run": it has the command.
func (sp *spareConn) taken() bool {
	buf := make([]byte, 64)
	for {
		n, _, _, _, err := unix.Recvmsg(int(sp.f.Fd()), buf, nil, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && string(buf[:n]) == spareTaken
	}
}

// encodeSpareRequest encodes a command for a spare (see spareBuf); fits
// is false when it is too big or a string holds a NUL.
func encodeSpareRequest(dir, path string, args, env []string) ([]byte, bool) {
	size := 8 + len(dir) + len(path) + 2
	for _, list := range [][]string{args, env} {
		for _, a := range list {
			size += len(a) + 1
		}
	}
	if size > maxSpareRequest || len(args) == 0 || len(args) > maxSpareArgs || len(env) > maxSpareEnv {
		return nil, false
	}
	b := make([]byte, 8, size)
	binary.LittleEndian.PutUint32(b[0:], uint32(len(args)))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(env)))
	for _, list := range [][]string{{dir, path}, args, env} {
		for _, a := range list {
			if strings.IndexByte(a, 0) >= 0 {
				return nil, false
			}
			b = append(append(b, a...), 0)
		}
	}
	return b, true
}

// done records that one of c's commands ended, and ends a released
// helper after its last.
func (c *client) done() {
	helpers.mu.Lock()
	c.running--
	last := c.released && c.running == 0
	helpers.mu.Unlock()
	if last {
		c.end()
	}
}

// died marks the helper dead, so the next command builds another.
func (c *client) died() {
	helpers.mu.Lock()
	c.dead = true
	if helpers.byKey[c.key] == c {
		delete(helpers.byKey, c.key)
		helpers.order = removeKey(helpers.order, c.key)
	}
	helpers.mu.Unlock()
	go c.end() // reaps it; a zombie would stay otherwise
}

// end ends the helper, and any command in it, and reaps it; once.
func (c *client) end() {
	c.ended.Do(func() {
		c.mu.Lock()
		if c.spare != nil {
			c.spare.f.Close()
			c.spare = nil
		}
		c.mu.Unlock()
		c.ctl.Close()
		c.proxyMu.Lock()
		c.proxyClosed = true
		if c.proxyL != nil {
			c.proxyL.Close()
		}
		c.proxyMu.Unlock()
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
}

// stdio opens cmd's standard descriptors (nil means /dev/null) and
// returns a function closing what it opened.
func stdio(cmd *exec.Cmd) ([]*os.File, func(), error) {
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	files := make([]*os.File, 3)
	for i, v := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if f, ok := v.(*os.File); ok && f != nil {
			files[i] = f
			continue
		}
		flag := os.O_WRONLY
		if i == 0 {
			flag = os.O_RDONLY
		}
		f, err := os.OpenFile(os.DevNull, flag, 0)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		opened = append(opened, f)
		files[i] = f
	}
	return files, closeAll, nil
}
