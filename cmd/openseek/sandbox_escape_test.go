package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sse "github.com/tmaxmax/go-sse"
	"golang.org/x/sys/unix"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// socketProbeEnv makes this binary, run as a command in the sandbox, try
// to reach the UNIX sockets its value lists instead of running tests:
// name=kind:address entries separated by ";", where kind is stream,
// dgram (a datagram sent from a socket of its own) or pair (a datagram
// sent from one end of a socketpair). It prints "name: reached" or
// "name: refused (why)" for each, then whether a stream socketpair
// carries a byte ("pair stream: ok").
const socketProbeEnv = "OPENSEEK_TEST_SOCKET_PROBE"

func init() {
	if spec, ok := os.LookupEnv(socketProbeEnv); ok {
		socketProbe(spec)
		os.Exit(0)
	}
}

func socketProbe(spec string) {
	for _, entry := range strings.Split(spec, ";") {
		name, target, _ := strings.Cut(entry, "=")
		kind, addr, _ := strings.Cut(target, ":")
		var err error
		switch kind {
		case "stream":
			var c net.Conn
			if c, err = net.Dial("unix", addr); err == nil {
				c.Close()
			}
		case "dgram":
			var c net.Conn
			if c, err = net.Dial("unixgram", addr); err == nil {
				_, err = c.Write([]byte("x"))
				c.Close()
			}
		case "pair":
			var fds [2]int
			if fds, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0); err == nil {
				err = unix.Sendto(fds[0], []byte("x"), 0, &unix.SockaddrUnix{Name: addr})
				unix.Close(fds[0])
				unix.Close(fds[1])
			}
		default:
			err = fmt.Errorf("unknown kind %q", kind)
		}
		if err != nil {
			fmt.Printf("%s: refused (%v)\n", name, err)
		} else {
			fmt.Printf("%s: reached\n", name)
		}
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		buf := make([]byte, 1)
		if _, err = unix.Write(fds[0], []byte("y")); err == nil {
			_, err = unix.Read(fds[1], buf)
		}
	}
	if err != nil {
		fmt.Printf("pair stream: failed (%v)\n", err)
	} else {
		fmt.Println("pair stream: ok")
	}
}

// hostSockets listens on UNIX sockets of the host and counts whatever
// reaches them.
type hostSockets struct {
	reached atomic.Int32
	spec    []string
	names   []string
}

// stream listens on a stream socket at addr (a path, or "@name" in the
// abstract namespace), open to every user.
func (h *hostSockets) stream(t *testing.T, name, addr string) {
	t.Helper()
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	if !strings.HasPrefix(addr, "@") {
		os.Chmod(addr, 0o777)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.reached.Add(1)
			c.Close()
		}
	}()
	h.add(name, "stream:"+addr)
}

// dgram listens on a datagram socket at path, tried both ways (a socket
// of the command's own, and one end of a socketpair).
func (h *hostSockets) dgram(t *testing.T, name, path string) {
	t.Helper()
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	os.Chmod(path, 0o777)
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
			h.reached.Add(1)
		}
	}()
	h.add(name, "dgram:"+path)
	h.add(name+" via socketpair", "pair:"+path)
}

func (h *hostSockets) add(name, target string) {
	h.names = append(h.names, name)
	h.spec = append(h.spec, name+"="+target)
}

// socketDir makes a directory for sockets under parent that every user
// can enter, removed after the test.
func socketDir(t *testing.T, parent string) string {
	t.Helper()
	d, err := os.MkdirTemp(parent, "openseek-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	os.Chmod(d, 0o755)
	return d
}

// probeBinary puts this test binary in the workspace, where a sandboxed
// command can run it (the go tool keeps it in /tmp, which a command
// without network does not see), and returns its path there.
func probeBinary(t *testing.T, ws string) string {
	t.Helper()
	dst := filepath.Join(ws, "socket-probe")
	if err := os.Link(os.Args[0], dst); err == nil {
		return dst
	}
	in, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestNoHostUnixSocket: with the default sandbox (network off) a command
// reaches no UNIX socket of the host, wherever it lives — /srv (as root),
// /dev/shm, the workspace itself, the abstract namespace — not by
// connecting, not by a datagram, not through a socketpair's sendto; a
// socketpair between its own processes keeps working.
func TestNoHostUnixSocket(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	var h hostSockets
	parents := []string{"/dev/shm"}
	if os.Geteuid() == 0 {
		parents = append(parents, "/srv")
	}
	for _, parent := range parents {
		if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
			continue
		}
		d := socketDir(t, parent)
		h.stream(t, parent+" stream", filepath.Join(d, "t.sock"))
		h.dgram(t, parent+" datagram", filepath.Join(d, "d.sock"))
	}
	// A socket in the workspace is out of reach too: the filter cannot
	// tell one path from another (README, Sandbox hardening).
	h.stream(t, "workspace stream", filepath.Join(ws, "dev.sock"))
	h.stream(t, "abstract stream", "@openseek-test-"+rand.Text())
	probe := probeBinary(t, ws)

	cmd := socketProbeEnv + "='" + strings.Join(h.spec, ";") + "' ./" + filepath.Base(probe)
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "probe", Name: "shell", Args: `{"cmd":` + quoteJSON(cmd) + `}`}), llmtest.Text("tried"))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "reach the host's sockets")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	var out string
	for _, tr := range find[protocol.ToolResult](r.events) {
		out += tr.Content
	}
	for _, name := range h.names {
		if !strings.Contains(out, name+": refused") {
			t.Errorf("%s was not refused:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "pair stream: ok") {
		t.Errorf("a stream socketpair failed in the sandbox:\n%s", out)
	}
	if n := h.reached.Load(); n != 0 {
		t.Errorf("commands reached the host's UNIX sockets %d times:\n%s", n, out)
	}
	t.Logf("%s", out)
}

// TestServeHTTPSessionsHaveTheirOwnTmp: two sessions of one
// `serve --http` process, default sandbox: what one leaves in /tmp the
// other does not see; on the helper path a session keeps its own /tmp
// from one step to the next.
func TestServeHTTPSessionsHaveTheirOwnTmp(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	secret := "left-by-a-" + rand.Text()
	shell := func(id, cmd string) llmtest.Reply {
		return llmtest.Calls(llmtest.Call{ID: id, Name: "shell", Args: `{"cmd":` + quoteJSON(cmd) + `}`})
	}
	srv := llmtest.NewServer(t,
		shell("a1", "echo "+secret+" > /tmp/left && cat /tmp/left"), llmtest.Text("a wrote"),
		shell("b1", "cat /tmp/left; ls /tmp"), llmtest.Text("b looked"),
		shell("a2", "cat /tmp/left"), llmtest.Text("a looked"),
	)
	srv.MultiConversation()
	s := startHTTP(t, ws, home, append(modelArgs(srv), "serve", "--http", "127.0.0.1:0")...)
	results := map[string]string{}
	streams := map[string]func() (sse.Event, error, bool){}
	turn := func(id string) {
		t.Helper()
		next := streams[id]
		if next == nil {
			next = s.events(t, id, "")
			readUntil(t, next, "session_started")
			streams[id] = next
		}
		if code, body, _ := s.do(t, "POST", "/v1/sessions/"+id+"/commands", `{"command":"prompt","content":"go"}`, nil); code != 202 {
			t.Fatalf("prompt %s = %d %s", id, code, body)
		}
		for _, e := range readUntil(t, next, "turn_summary") {
			if ev, ok := protocol.ParseEvent([]byte(e.Data)); ok {
				if tr, ok := ev.(protocol.ToolResult); ok {
					results[tr.ToolCallID] = tr.Content
				}
			}
		}
	}
	for _, id := range []string{"a", "b"} {
		if code, body, _ := s.do(t, "POST", "/v1/sessions", `{"id":"`+id+`"}`, nil); code != 201 {
			t.Fatalf("POST /v1/sessions %s = %d %s", id, code, body)
		}
	}
	turn("a")
	if !strings.Contains(results["a1"], secret) {
		t.Fatalf("session a could not write its /tmp: %q", results["a1"])
	}
	turn("b")
	if strings.Contains(results["b1"], secret) || !strings.Contains(results["b1"], "No such file") {
		t.Errorf("session b saw session a's /tmp: %q", results["b1"])
	}
	turn("a")
	if helper, _ := sandbox.StartPath(); helper && !strings.Contains(results["a2"], secret) {
		t.Errorf("session a lost its /tmp between steps: %q", results["a2"])
	}
	s.stop(t, unix.SIGTERM)
}

// TestSandboxStartPathChosen: a binary built with a Go release its fast
// path was not tested with (testedGo set so at link time) starts every
// command by re-executing itself, and `doctor` says so; this test binary,
// built with a tested release, uses the helper unless the tests force
// the re-exec path.
func TestSandboxStartPathChosen(t *testing.T) {
	t.Parallel()
	pid1 := "tr '\\0' ' ' < /proc/1/cmdline"
	check := func(t *testing.T, bin string, env []string, wantHelper bool) {
		t.Helper()
		ws := t.TempDir()
		d := runBinary(t, bin, ws, "", env, "doctor")
		var line string
		for l := range strings.Lines(d.stdout) {
			if f := strings.Fields(l); len(f) > 1 && f[1] == "sandbox" {
				line = l
			}
		}
		wantDoctor := "Commands start through the sandbox helper"
		if !wantHelper {
			wantDoctor = "Commands start by re-executing openseek"
		}
		if !strings.HasPrefix(line, "ok") || !strings.Contains(line, wantDoctor) {
			t.Errorf("doctor's sandbox line %q does not say %q\n%s", line, wantDoctor, d.stdout)
		}
		srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "p", Name: "shell", Args: `{"cmd":` + quoteJSON(pid1) + `}`}), llmtest.Text("seen"))
		r := runBinary(t, bin, ws, "", env, append(modelArgs(srv), "run", "who is pid 1")...)
		if r.code != 0 {
			t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
		}
		var out string
		for _, tr := range find[protocol.ToolResult](r.events) {
			out += tr.Content
		}
		// PID 1 of the command: the helper's supervisor, or on the
		// re-exec path the sandbox's own init.
		if got := strings.Contains(out, "openseek-sandbox-helper"); got != wantHelper || !strings.Contains(out, "openseek-sandbox") {
			t.Errorf("pid 1 of the command is %q; want the helper: %v", out, wantHelper)
		}
	}
	t.Run("tested", func(t *testing.T) {
		helper, _ := sandbox.StartPath()
		check(t, os.Args[0], []string{"OPENSEEK_TEST_MAIN=1"}, helper)
	})
	t.Run("untested", func(t *testing.T) {
		bin := filepath.Join(t.TempDir(), "openseek")
		build := goBuild("-o", bin, "-ldflags", "-X github.com/openseek/openseek/internal/sandbox.testedGo=go1.0", ".")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		check(t, bin, nil, false)
	})
}

// TestSandboxEscapesAsOrdinaryUser runs this file's sandbox tests again
// as an ordinary user. (TestSandboxStartPathChosen is left out: the path
// does not depend on the user, and its build needs the go tool's cache.)
func TestSandboxEscapesAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestNoHostUnixSocket|TestServeHTTPSessionsHaveTheirOwnTmp)$")
}

// startPathEnv passes the sandbox's start path the tests were told to
// take (sandboxtest.OnReexecPath) on to the program under test, which
// runs with an environment of its own.
func startPathEnv() []string {
	if v, ok := os.LookupEnv(sandbox.ReexecEnv); ok {
		return []string{sandbox.ReexecEnv + "=" + v}
	}
	return nil
}

// TestSandboxOnReexecPath runs the CLI's sandbox tests again on the
// sandbox's re-exec path, as root and as an ordinary user.
func TestSandboxOnReexecPath(t *testing.T) {
	t.Parallel()
	sandboxtest.OnReexecPath(t, "^(TestAgentStaysInTheSandbox|TestPlanModeRunsNoWrites|TestAgentAsOrdinaryUser|TestNoHostUnixSocket|TestServeHTTPSessionsHaveTheirOwnTmp|TestSandboxEscapesAsOrdinaryUser|TestNetworkAllowlistEndToEnd|TestNetworkAskedInAutoMode|TestSSHThroughProxyConnect)$")
}
