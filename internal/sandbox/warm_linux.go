package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Warm sandboxes: building a sandbox (starting this program again, its
// namespaces, mounts, Landlock rules, seccomp filter) costs far more than
// the command it usually runs. [Policy.Start] therefore keeps, per policy,
// one sandbox built ahead — a spare (spare_linux.go) — and hands the next
// command to it: the command starts with a socket round trip instead of
// the whole build, and a new spare is built in the background while the
// command runs and the model thinks. Each command still gets a sandbox of
// its own (its own PID namespace and /proc, taking every process it
// starts with it), so nothing changes for it but the wait.
//
// A spare that died (killed from outside, or its build failed) is noticed
// when its command would be handed over: the command then gets a sandbox
// built the ordinary way, which reports a build failure in its output as
// always, and a new spare is built. Nothing ever runs outside a sandbox.

// maxSpares bounds the idle spares one process keeps (one per policy).
const maxSpares = 4

// spareSetupTimeout bounds the wait for a spare still being built.
const spareSetupTimeout = 2 * time.Minute

// spare is an idle sandbox, built or being built, for one policy.
type spare struct {
	cmd  *exec.Cmd
	ctl  *net.UnixConn
	born time.Time
}

// spares is this process's pool of idle spares, by policy key.
var spares struct {
	mu     sync.Mutex
	idle   map[string]*spare
	order  []string        // keys, least recently used first
	broken map[string]bool // policies whose spare could not be built
	wg     sync.WaitGroup  // spares being started in the background
}

// Start starts cmd inside the sandbox p describes, like Wrap followed by
// cmd.Start: afterwards cmd.Process is the sandbox's supervisor, which
// exits with the command's status (128+N for death by signal N) and leads
// the command's process group when SysProcAttr.Setpgid is set, and
// cmd.Wait waits for it. cmd's Stdin, Stdout and Stderr must be nil or
// *os.File, since no goroutine copies them.
//
// The command goes to a spare of p when one is idle, its directory lies
// in the workspace and it asks for nothing but a process group; otherwise
// it is wrapped and started as Wrap does. Either way a spare for p is
// then built for the next command.
func (p Policy) Start(cmd *exec.Cmd) error {
	for _, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if _, ok := f.(*os.File); f != nil && !ok {
			return errors.New("sandbox: Start needs *os.File (or nil) for stdin, stdout and stderr")
		}
	}
	pol, err := p.validate()
	if err != nil {
		return err
	}
	key, err := policyKey(pol)
	if err != nil {
		return err
	}
	if req := spareCommand(pol, cmd); req != nil {
		if s := takeSpare(key); s != nil {
			handed, err := s.run(cmd, req)
			switch {
			case errors.Is(err, errSpareBuild):
				markBroken(key) // the cold build below reports why
			case handed:
				refill(key, pol)
				return err
			}
			// The spare was gone: build this command's sandbox the
			// ordinary way, which reports any failure itself.
		}
	}
	if err := p.Wrap(cmd); err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	refill(key, pol)
	return nil
}

// Prepare builds a spare for p and waits until it is ready (or failed):
// a true test that sandboxed commands will run here, after which the
// first command starts at once. Call it where Try would be called when
// commands are about to follow.
func (p Policy) Prepare() error {
	pol, err := p.validate()
	if err != nil {
		return err
	}
	key, err := policyKey(pol)
	if err != nil {
		return err
	}
	s := takeSpare(key)
	if s == nil {
		if s, err = startSpare(pol); err != nil {
			return err
		}
	}
	if err := s.ready(); err != nil {
		s.discard()
		return err
	}
	putSpare(key, s)
	return nil
}

// DropSpares ends every idle spare of this process (they also end with it,
// whatever way it exits) and waits for spares still being started.
func DropSpares() {
	spares.wg.Wait()
	spares.mu.Lock()
	idle := spares.idle
	spares.idle, spares.order = nil, nil
	spares.mu.Unlock()
	for _, s := range idle {
		s.discard()
	}
}

// spareCommand is cmd encoded for a spare of pol, or nil when a spare
// cannot take it: its directory must lie in the workspace (a spare hides
// the rest of /tmp), it may ask for nothing but a process group, and it
// must fit in one message.
func spareCommand(pol Policy, cmd *exec.Cmd) []byte {
	if cmd.Process != nil || cmd.Err != nil || len(cmd.ExtraFiles) > 0 || cmd.Path == "" || len(cmd.Args) == 0 {
		return nil
	}
	if a := cmd.SysProcAttr; a == nil || !a.Setpgid || !onlySetpgid(*a) {
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
	req, err := json.Marshal(spareRequest{Path: cmd.Path, Args: cmd.Args, Env: withoutVar(env, childEnv), Dir: dir})
	if err != nil || len(req) > maxSpareRequest {
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

func takeSpare(key string) *spare {
	spares.mu.Lock()
	defer spares.mu.Unlock()
	s := spares.idle[key]
	if s != nil {
		delete(spares.idle, key)
		spares.order = removeKey(spares.order, key)
	}
	return s
}

// putSpare keeps s as key's spare, ending the least recently used one
// when the pool is full (and any spare key already had).
func putSpare(key string, s *spare) {
	spares.mu.Lock()
	if spares.idle == nil {
		spares.idle = map[string]*spare{}
	}
	var drop []*spare
	if old := spares.idle[key]; old != nil {
		drop = append(drop, old)
		spares.order = removeKey(spares.order, key)
	}
	spares.idle[key] = s
	spares.order = append(spares.order, key)
	for len(spares.order) > maxSpares {
		oldest := spares.order[0]
		spares.order = spares.order[1:]
		drop = append(drop, spares.idle[oldest])
		delete(spares.idle, oldest)
	}
	spares.mu.Unlock()
	for _, d := range drop {
		d.discard()
	}
}

func removeKey(keys []string, key string) []string {
	for i, k := range keys {
		if k == key {
			return append(keys[:i:i], keys[i+1:]...)
		}
	}
	return keys
}

// refill builds the next spare for key in the background, unless one is
// idle already or the policy's spares cannot be built.
func refill(key string, pol Policy) {
	spares.mu.Lock()
	if spares.broken[key] || spares.idle[key] != nil {
		spares.mu.Unlock()
		return
	}
	spares.wg.Add(1)
	spares.mu.Unlock()
	go func() {
		defer spares.wg.Done()
		s, err := startSpare(pol)
		if err != nil {
			markBroken(key)
			return
		}
		putSpare(key, s)
	}()
}

func markBroken(key string) {
	spares.mu.Lock()
	if spares.broken == nil {
		spares.broken = map[string]bool{}
	}
	spares.broken[key] = true
	spares.mu.Unlock()
}

// startSpare starts building a sandbox for pol in the workspace. It does
// not wait for the build: the spare reports on its control socket.
func startSpare(pol Policy) (*spare, error) {
	if _, inChild := os.LookupEnv(childEnv); inChild || !mainCalled.Load() {
		return nil, errors.New("sandbox: this program did not call sandbox.Main at start, so it cannot run sandboxed commands")
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	parent := os.NewFile(uintptr(fds[0]), "sandbox-control")
	child := os.NewFile(uintptr(fds[1]), "sandbox-control")
	defer child.Close()
	fc, err := net.FileConn(parent)
	parent.Close()
	if err != nil {
		return nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	ctl := fc.(*net.UnixConn)
	prog, err := seccompProgram()
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("sandbox: assemble the seccomp filter: %w", err)
	}
	data, err := json.Marshal(payload{Policy: pol, Seccomp: prog, Spare: true})
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	cmd := &exec.Cmd{
		Path:       selfExe,
		Args:       []string{"openseek-sandbox"},
		Dir:        pol.Workspace,
		Env:        append(FilterEnv(withoutVar(os.Environ(), childEnv), pol.AllowEnv), childEnv+"="+string(data)),
		ExtraFiles: []*os.File{child},
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid: true,
			// Should this program die, the spare and any command in it die too.
			Pdeathsig: syscall.SIGKILL,
		},
	}
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID)
	if !pol.Network {
		flags |= syscall.CLONE_NEWNET
	}
	setNamespaces(cmd.SysProcAttr, flags)
	if err := cmd.Start(); err != nil {
		ctl.Close()
		return nil, fmt.Errorf("sandbox: start: %w", err)
	}
	return &spare{cmd: cmd, ctl: ctl, born: time.Now()}, nil
}

// errSpareBuild marks a spare whose sandbox could not be built.
var errSpareBuild = errors.New("the sandbox could not be built")

// ready waits for the spare's build to end: nil when it is ready for a
// command; an error wrapping errSpareBuild when the build failed.
func (s *spare) ready() error {
	s.ctl.SetReadDeadline(time.Now().Add(spareSetupTimeout))
	kind, detail, err := s.read()
	switch {
	case err != nil:
		return fmt.Errorf("the sandbox ended while being built: %w", err)
	case kind == spareFailed:
		return fmt.Errorf("%w: %s", errSpareBuild, detail)
	case kind != spareReady:
		return fmt.Errorf("the sandbox said %q while being built", kind)
	}
	return nil
}

// read reads one message from the spare.
func (s *spare) read() (kind, detail string, err error) {
	buf := make([]byte, 4096)
	n, err := s.ctl.Read(buf)
	if err != nil {
		return "", "", err
	}
	if n == 0 {
		return "", "", errors.New("it hung up")
	}
	kind, detail = parseSpareMessage(buf[:n])
	return kind, detail, nil
}

// run hands cmd (encoded as req) to the spare, which is used up either
// way. handed is false when the spare never took the command (it had
// died, or its build failed: then err wraps errSpareBuild); the caller
// builds a sandbox the ordinary way then.
func (s *spare) run(cmd *exec.Cmd, req []byte) (handed bool, err error) {
	if err := s.ready(); err != nil {
		s.discard()
		return false, err
	}
	files, closeFiles, err := stdio(cmd)
	if err != nil {
		s.discard()
		return true, err
	}
	rights := unix.UnixRights(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()))
	s.ctl.SetWriteDeadline(time.Now().Add(spareSetupTimeout))
	_, _, err = s.ctl.WriteMsgUnix(req, rights, nil)
	closeFiles()
	if err != nil {
		s.discard()
		return false, nil
	}
	kind, detail, err := s.read()
	switch {
	case err != nil:
		// It died with the command in hand: whether the command began
		// is unknown, so it is not started again.
		s.discard()
		return true, fmt.Errorf("sandbox: the sandbox ended while starting the command: %w", err)
	case kind == spareFailed:
		s.discard()
		return true, errors.New(detail)
	}
	s.ctl.Close()
	cmd.Process = s.cmd.Process
	return true, nil
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

// discard ends the spare and reaps it.
func (s *spare) discard() {
	s.ctl.Close()
	s.cmd.Process.Kill()
	s.cmd.Wait()
}
