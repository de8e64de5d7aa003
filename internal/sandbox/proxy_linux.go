package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// The network proxy's path into a sandbox: the sandbox's init (a
// helper, or a wrapped command's) brings up loopback in its new network
// namespace — its only interface — and listens at ProxyAddr there, then
// hands the listening socket to this program over a UNIX socket pair
// (with the helper's "ready", or on the wrapper's own pair). This
// program accepts on it and makes the connections from outside. So a
// command's inet sockets reach the sandbox's loopback and nothing else,
// and the seccomp filter stays the one without network: no UNIX socket
// of the host is needed to reach the proxy.

// proxyEnv is env with the variables that point a command's tools at
// the proxy (curl, wget, git, pip, npm, Go, Python read one or another).
func proxyEnv(env []string, px NetworkProxy) []string {
	if env == nil {
		env = os.Environ()
	}
	u := "http://" + ProxyAddr
	np := px.NoProxy()
	return withVars(env, []string{
		"ALL_PROXY=" + u, "HTTPS_PROXY=" + u, "HTTP_PROXY=" + u, "NO_PROXY=" + np,
		"all_proxy=" + u, "http_proxy=" + u, "https_proxy=" + u, "no_proxy=" + np,
	})
}

// proxyListener runs in the sandbox's init, in its new network
// namespace, before it drops its capabilities: it brings loopback up
// and returns a socket listening at ProxyAddr.
func proxyListener() (int, error) {
	if err := loopbackUp(); err != nil {
		return -1, fmt.Errorf("bring up loopback for the network proxy: %w", err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("network proxy socket: %w", err)
	}
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	addr, _ := net.ResolveTCPAddr("tcp", ProxyAddr)
	sa := &unix.SockaddrInet4{Port: addr.Port}
	copy(sa.Addr[:], addr.IP.To4())
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("network proxy: listen at %s: %w", ProxyAddr, err)
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("network proxy: listen at %s: %w", ProxyAddr, err)
	}
	return fd, nil
}

// loopbackUp sets the loopback interface of this network namespace up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// receivedListener is the listener whose descriptor came with a message
// (oob), or nil.
func receivedListener(oob []byte) (net.Listener, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var l net.Listener
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			f := os.NewFile(uintptr(fd), "sandbox-proxy-listener")
			if l == nil {
				l, err = net.FileListener(f)
			}
			f.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	if l == nil {
		return nil, errors.New("no listener came")
	}
	return l, nil
}

// serveWrapped serves the proxy for a wrapped command: its init sends
// the listener on conn, then holds its end open until it exits, when the
// listener is closed.
func serveWrapped(conn *net.UnixConn, px NetworkProxy) {
	defer conn.Close()
	buf := make([]byte, 64)
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return // the init ended before it listened
	}
	l, err := receivedListener(oob[:oobn])
	if err != nil {
		return
	}
	defer l.Close()
	go px.Serve(l)
	for {
		if _, err := conn.Read(buf); err != nil {
			return // the command's init ended
		}
	}
}

// wrapProxy gives a wrapped command the proxy: the pair its init sends
// the listener on, at the descriptor it returns; started closes this
// program's copy of the init's end once the command started.
func wrapProxy(cmd *exec.Cmd, px NetworkProxy) (fd int, started func(), err error) {
	parent, child, err := socketPair("sandbox-proxy")
	if err != nil {
		return 0, func() {}, err
	}
	fc, err := net.FileConn(parent)
	parent.Close()
	if err != nil {
		child.Close()
		return 0, func() {}, fmt.Errorf("sandbox: proxy socket: %w", err)
	}
	fd = 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, child)
	go serveWrapped(fc.(*net.UnixConn), px)
	return fd, func() { child.Close() }, nil
}
