package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// childEnv is the marker variable that carries the payload to the child.
const childEnv = "OPENSEEK_SANDBOX_CHILD"

// mainCalled records that this program called [Main]: without that, the
// wrapper it starts would run the program itself (its tests, say) as the
// command. It is a fact about the process, set once at start.
var mainCalled atomic.Bool

// selfExe is the running program, whatever happens to its file on disk.
const selfExe = "/proc/self/exe"

// payload is what the parent hands the child through childEnv; the real
// argv follows the wrapper's argv[0].
type payload struct {
	Policy Policy `json:"policy"`
	Path   string `json:"path"` // the real command's executable
	// Seccomp is the assembled filter (see seccompProgram).
	Seccomp []unix.SockFilter `json:"seccomp"`
	// Helper asks for a sandbox that runs many commands, which arrive
	// over the control socket at helperFD (see helper_linux.go).
	Helper bool `json:"helper,omitempty"`
	// ProxyFD is the descriptor a wrapped command's init sends the
	// network proxy's listener on (Policy.Proxied).
	ProxyFD int `json:"proxy_fd,omitempty"`
}

// Wrap rewrites cmd, not yet started, to run inside the sandbox: it starts
// this program again (its [Main] applies p and execs the real command)
// in new namespaces. Path, Args, Env and SysProcAttr are changed; other
// SysProcAttr settings such as Setpgid are kept, and the command keeps its
// pid, so signalling its process group works as before. Wrap fails when
// the program it runs in did not call Main first (the marker is still set).
// A wrapped command gets no network proxy (it has no network, as without
// one); [Policy.Start] gives one.
func (p Policy) Wrap(cmd *exec.Cmd) error {
	p.Proxy, p.Proxied = nil, false
	_, err := p.wrap(cmd)
	return err
}

// wrap is Wrap with the network proxy: started is to be called once
// cmd.Start returned (it closes this program's copy of the descriptor
// the proxy's listener comes back on).
func (p Policy) wrap(cmd *exec.Cmd) (started func(), err error) {
	started = func() {}
	if cmd.Process != nil {
		return started, errors.New("sandbox: command already started")
	}
	if cmd.Err != nil {
		return started, cmd.Err
	}
	if _, inChild := os.LookupEnv(childEnv); inChild || !mainCalled.Load() {
		return started, errors.New("sandbox: this program did not call sandbox.Main at start, so it cannot run sandboxed commands")
	}
	pol, err := p.validate()
	if err != nil {
		return started, err
	}
	pol.Proxied = pol.Proxied && pol.Proxy != nil
	if cmd.Path == "" || len(cmd.Args) == 0 {
		return started, errors.New("sandbox: command has no path")
	}
	prog, err := seccompProgram(pol.Network)
	if err != nil {
		return started, fmt.Errorf("sandbox: assemble the seccomp filter: %w", err)
	}
	pl := payload{Policy: pol, Path: cmd.Path, Seccomp: prog}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	if pol.Proxied {
		env = proxyEnv(env, pol.Proxy)
		if pl.ProxyFD, started, err = wrapProxy(cmd, pol.Proxy); err != nil {
			return started, err
		}
	}
	data, err := json.Marshal(pl)
	if err != nil {
		return started, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	env = withoutVar(env, childEnv)
	cmd.Env = append(env, childEnv+"="+string(data))
	cmd.Args = append([]string{"openseek-sandbox"}, cmd.Args...)
	cmd.Path = selfExe
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID)
	if !pol.Network {
		flags |= syscall.CLONE_NEWNET
	}
	setNamespaces(cmd.SysProcAttr, flags)
	proxyCaps(cmd.SysProcAttr, pol)
	// Should this program die without ending the command (kill -9), the
	// sandbox's init dies too, and with it every process of the command.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	return started, nil
}

// setNamespaces asks for new namespaces of the given kinds. The user
// namespace maps ids to themselves: root keeps every id (so files of any
// owner look as before) but its capabilities count only inside the new
// namespace — it cannot join the host's network namespace or load
// modules; anyone else keeps their own uid and gid.
func setNamespaces(a *syscall.SysProcAttr, flags uintptr) {
	a.Cloneflags |= flags
	if flags&syscall.CLONE_NEWUSER == 0 {
		return
	}
	if os.Geteuid() == 0 {
		all := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		a.UidMappings, a.GidMappings = all, all
		a.GidMappingsEnableSetgroups = true
		return
	}
	// An ordinary user keeps their own uid, which has no capabilities
	// after exec; the two the sandbox's setup needs (mounting, dropping
	// the bounding set) are passed on as ambient capabilities, valid only
	// in the new namespaces, and dropped before the command starts.
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
	uid, gid := os.Geteuid(), os.Getegid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// proxyCaps adds, for an ordinary user, the capability the sandbox's
// init needs to bring up loopback for the proxy (valid only in the new
// namespaces, dropped before the command starts like the others).
func proxyCaps(a *syscall.SysProcAttr, pol Policy) {
	if pol.Proxied && a.AmbientCaps != nil {
		a.AmbientCaps = append(a.AmbientCaps, unix.CAP_NET_ADMIN)
	}
}

// withoutVar is env without entries for name.
func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
