package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/e2etest"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// hostServers starts, on the host's loopback (outside any sandbox), an
// HTTP server answering "hello-from-host" and a TCP echo server; it
// returns their ports.
func hostServers(t *testing.T) (httpPort, echoPort string) {
	t.Helper()
	hl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello-from-host\n")
	})}
	go srv.Serve(hl)
	t.Cleanup(func() { srv.Close() })
	echo := serveTCP(t, func(c net.Conn) { io.Copy(c, c) })
	return strconv.Itoa(hl.Addr().(*net.TCPAddr).Port), echo
}

// serveTCP serves each connection to a port of the host's loopback with
// handle (which need not close it) until the test ends; it returns the
// port.
func serveTCP(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// TestNetworkAllowlistEndToEnd drives `openseek run` with the default
// sandbox and [sandbox] network listing two ports of localhost: curl
// reaches the listed HTTP server through the proxy (plain and through a
// CONNECT tunnel), an unlisted host is refused with the message naming
// the config key, curl told to bypass the proxy finds no route, and
// `openseek proxy-connect` (ssh's ProxyCommand) tunnels raw TCP to the
// echo server. The session log records each connection.
func TestNetworkAllowlistEndToEnd(t *testing.T) {
	t.Parallel()
	e2etest.Need(t, "apt-get install curl", "curl")
	httpPort, echoPort := hostServers(t)
	ws, home := t.TempDir(), t.TempDir()
	// (ignored: the snapshot before the turn would store the binary)
	writeTree(t, ws, map[string]string{".git/config": "[core]\n", ".gitignore": "/openseek\n"})
	writeTree(t, home, map[string]string{".openseek/config.toml": fmt.Sprintf("[sandbox]\nnetwork = [\"localhost:%s\", \"localhost:%s\"]\n", httpPort, echoPort)})
	listed := "http://localhost:" + httpPort + "/"
	// The command's /tmp is private, and this test binary (the openseek
	// under test) lives there: put it in the workspace.
	bin := filepath.Join(ws, "openseek")
	linkOrCopy(t, os.Args[0], bin)
	calls := []llmtest.Call{
		{ID: "listed", Name: "shell", Args: `{"cmd":` + quoteJSON("curl -sS --max-time 20 "+listed) + `}`},
		{ID: "connect", Name: "shell", Args: `{"cmd":` + quoteJSON("curl -sS --max-time 20 --proxytunnel "+listed) + `}`},
		{ID: "refused", Name: "shell", Args: `{"cmd":` + quoteJSON("curl -sS --max-time 20 http://unlisted.invalid:"+httpPort+"/") + `}`},
		{ID: "direct", Name: "shell", Args: `{"cmd":` + quoteJSON("curl -sS --max-time 5 --noproxy '*' "+listed+"; echo direct-exit=$?") + `}`},
		{ID: "tunnel", Name: "shell", Args: `{"cmd":` + quoteJSON("echo ping-through-tunnel | "+bin+" proxy-connect localhost "+echoPort) + `}`},
		{ID: "tunnel-refused", Name: "shell", Args: `{"cmd":` + quoteJSON(bin+" proxy-connect example.invalid 22 </dev/null") + `}`},
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Calls: calls}, llmtest.Text("done"))
	r := openseek(t, ws, "", []string{"HOME=" + home}, append(modelArgs(srv), "run", "use the network")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	results := map[string]string{}
	for _, tr := range find[protocol.ToolResult](r.events) {
		results[tr.ToolCallID] = tr.Content
	}
	refusal := "openseek: network access to unlisted.invalid:" + httpPort + " is not allowed; add it to [sandbox] network in config"
	for id, want := range map[string]string{
		"listed":         "hello-from-host",
		"connect":        "hello-from-host",
		"refused":        refusal,
		"tunnel":         "ping-through-tunnel",
		"tunnel-refused": "openseek: network access to example.invalid:22 is not allowed",
	} {
		if !strings.Contains(results[id], want) {
			t.Errorf("%s: result %q, want %q", id, results[id], want)
		}
	}
	if c := results["direct"]; strings.Contains(c, "hello-from-host") || strings.Contains(c, "direct-exit=0") {
		t.Errorf("a connection that bypassed the proxy reached the host: %q", c)
	}

	// Every face sees each connection as a notice; the log keeps it.
	var notices []string
	for _, n := range find[protocol.BackgroundNotice](r.events) {
		notices = append(notices, n.Content)
	}
	id := find[protocol.SessionStarted](r.events)[0].Session
	s, err := session.NewStore(filepath.Join(ws, ".openseek")).Load(id)
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	for _, e := range s.Events {
		if n, ok := e.Item.(*session.Notice); ok && session.IsNetworkMarker(n.Content) {
			logged = append(logged, n.Content)
		}
	}
	for _, want := range []string{
		"[network] localhost:" + httpPort + " allowed, ",
		"[network] localhost:" + echoPort + " allowed, 20 bytes sent, 20 received",
		"[network] unlisted.invalid:" + httpPort + " refused: " + refusal,
	} {
		if !containsPrefix(logged, want) {
			t.Errorf("session log lacks %q; network notices: %q", want, logged)
		}
		if !containsPrefix(notices, want) {
			t.Errorf("events lack %q; background notices: %q", want, notices)
		}
	}
}

// TestNetworkAllowlistFromRepositoryOnceTrusted: a repository's
// [sandbox] network counts only once the repository is trusted; without
// an allowlist no proxy runs and commands have no network.
func TestNetworkAllowlistFromRepositoryOnceTrusted(t *testing.T) {
	t.Parallel()
	e2etest.Need(t, "apt-get install curl", "curl")
	httpPort, _ := hostServers(t)
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{
		".git/config":           "[core]\n",
		".openseek/config.toml": fmt.Sprintf("[sandbox]\nnetwork = [\"localhost:%s\"]\n", httpPort),
	})
	cmd := "echo proxy=${HTTP_PROXY:-none}; curl -sS --max-time 10 http://localhost:" + httpPort + "/"
	for _, trusted := range []bool{false, true} {
		srv := llmtest.NewServer(t, llmtest.Reply{Calls: []llmtest.Call{{ID: "c", Name: "shell", Args: `{"cmd":` + quoteJSON(cmd) + `}`}}}, llmtest.Text("done"))
		args := append(modelArgs(srv), "run", "--no-session", "fetch")
		if trusted {
			args = append([]string{"--trust-workspace"}, args...)
		}
		r := openseek(t, ws, "", nil, args...)
		if r.code != 0 {
			t.Fatalf("trusted=%v: exit %d\nstderr: %s", trusted, r.code, r.stderr)
		}
		out := find[protocol.ToolResult](r.events)[0].Content
		if trusted != strings.Contains(out, "hello-from-host") {
			t.Errorf("trusted=%v: %q", trusted, out)
		}
		if !trusted && (!strings.Contains(out, "proxy=none") || !strings.Contains(r.stdout+r.stderr, "sandbox.network")) {
			t.Errorf("untrusted: a proxy was set up (%q), or the held key was not named:\n%s", out, r.stderr)
		}
	}
}

// otherHostsListed is a workspace and a home whose config lists
// *.example.com only, and the port of the host's HTTP server, which it
// does not list.
func otherHostsListed(t *testing.T) (ws, home, httpPort string) {
	t.Helper()
	e2etest.Need(t, "apt-get install curl", "curl")
	httpPort, _ = hostServers(t)
	ws, home = t.TempDir(), t.TempDir()
	writeTree(t, ws, map[string]string{".git/config": "[core]\n"})
	writeTree(t, home, map[string]string{".openseek/config.toml": "[sandbox]\nnetwork = [\"*.example.com\"]\n"})
	return ws, home, httpPort
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// linkOrCopy makes dst the executable src: a hard link where the file
// system allows it, else a copy.
func linkOrCopy(t *testing.T, src, dst string) {
	t.Helper()
	if os.Link(src, dst) == nil {
		return
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestNetworkAllowCommand: over the protocol (`serve`), network_allow
// adds a host to the session's allowlist — a command then reaches it —
// and lists the allowlist; a session without an allowlist refuses it
// with a command_error that says how to get one.
func TestNetworkAllowCommand(t *testing.T) {
	t.Parallel()
	ws, home, httpPort := otherHostsListed(t)
	cmd := "curl -sS --max-time 20 http://localhost:" + httpPort + "/"
	srv := llmtest.NewServer(t, llmtest.Reply{Calls: []llmtest.Call{{ID: "c", Name: "shell", Args: `{"cmd":` + quoteJSON(cmd) + `}`}}}, llmtest.Text("done"))
	in := `{"command":"network_allow","host":"localhost:` + httpPort + `"}` + "\n" +
		`{"command":"prompt","content":"fetch"}` + "\n"
	r := openseek(t, ws, in, []string{"HOME=" + home}, append(modelArgs(srv), "serve")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if errs := find[protocol.CommandError](r.events); len(errs) != 0 {
		t.Fatalf("command errors: %+v", errs)
	}
	var list bool
	for _, n := range find[protocol.BackgroundNotice](r.events) {
		list = list || n.Content == "[network] commands may reach: *.example.com, localhost:"+httpPort
	}
	if !list {
		t.Errorf("no notice listing the allowlist: %+v", find[protocol.BackgroundNotice](r.events))
	}
	if out := find[protocol.ToolResult](r.events)[0].Content; !strings.Contains(out, "hello-from-host") {
		t.Errorf("the host allowed for the session was not reached: %q", out)
	}

	// Without an allowlist the sandbox has no proxy to add hosts to.
	os.Remove(filepath.Join(home, ".openseek", "config.toml"))
	r = openseek(t, ws, `{"command":"network_allow","host":"localhost"}`+"\n", []string{"HOME=" + home}, append(modelArgs(srv), "--session", "none", "serve")...)
	errs := find[protocol.CommandError](r.events)
	if len(errs) != 1 || !strings.Contains(errs[0].Error, "no network allowlist") || !strings.Contains(errs[0].Error, "[sandbox] network") {
		t.Errorf("network_allow without an allowlist: %+v", errs)
	}
}

// TestNetworkAskedInAutoMode: where someone answers (auto mode, here over
// the protocol), a host the allowlist lacks is asked about while the
// command's connection waits; allowed for the session, the next command
// reaches it unasked, and both stay in the sandbox.
func TestNetworkAskedInAutoMode(t *testing.T) {
	t.Parallel()
	ws, home, httpPort := otherHostsListed(t)
	// --noproxy '': localhost goes to the proxy although NO_PROXY keeps
	// it the sandbox's own while the allowlist does not name it.
	cmd := "curl -sS --max-time 60 --noproxy '' http://localhost:" + httpPort + "/"
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "c1", Name: "shell", Args: `{"cmd":` + quoteJSON(cmd) + `}`}),
		llmtest.Calls(llmtest.Call{ID: "c2", Name: "shell", Args: `{"cmd":` + quoteJSON(cmd) + `}`}),
		llmtest.Text("done"))
	proc := exec.Command(os.Args[0], append(modelArgs(srv), "--approval", "auto", "serve")...)
	proc.Dir = ws
	proc.Env = append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + home, "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1"}, startPathEnv()...)
	in, _ := proc.StdinPipe()
	outp, _ := proc.StdoutPipe()
	var errb bytes.Buffer
	proc.Stderr = &errb
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(90*time.Second, func() { proc.Process.Kill() })
	defer timer.Stop()
	in.Write([]byte(`{"command":"prompt","content":"fetch twice"}` + "\n"))
	var asked []protocol.ApprovalRequested
	var events []protocol.Event
	sc := bufio.NewScanner(outp)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		ev, _ := protocol.ParseEvent(sc.Bytes())
		events = append(events, ev)
		switch ev := ev.(type) {
		case protocol.ApprovalRequested:
			asked = append(asked, ev)
			line, _ := json.Marshal(map[string]any{"command": "approval", "id": ev.ID, "allow": true, "remember": true})
			in.Write(append(line, '\n'))
		case protocol.TurnSummary:
			in.Close()
		}
	}
	in.Close()
	if err := proc.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, errb.String())
	}
	if len(asked) != 1 || asked[0].ToolName != "network" || !strings.Contains(asked[0].Detail, "localhost:"+httpPort) {
		t.Fatalf("approvals asked: %+v; events %+v", asked, events)
	}
	results := find[protocol.ToolResult](events)
	if len(results) != 2 || !strings.Contains(results[0].Content, "hello-from-host") || !strings.Contains(results[1].Content, "hello-from-host") {
		t.Errorf("results: %+v", results)
	}
}

// TestSSHThroughProxyConnect: ssh with `openseek proxy-connect %h %p` as
// its ProxyCommand reaches a listed host:port from the sandbox — here a
// server on the host that only trades SSH banners, the server's of which
// ssh -v reports.
func TestSSHThroughProxyConnect(t *testing.T) {
	t.Parallel()
	e2etest.Need(t, "apt-get install openssh-client", "ssh")
	// The banner, then the end once ssh said its own: ssh -v has
	// reported the server's version by then.
	port := serveTCP(t, func(c net.Conn) {
		io.WriteString(c, "SSH-2.0-openseektest\r\n")
		c.SetDeadline(time.Now().Add(30 * time.Second))
		bufio.NewReader(c).ReadString('\n')
	})
	ws, home := t.TempDir(), t.TempDir()
	writeTree(t, ws, map[string]string{".git/config": "[core]\n", ".gitignore": "/openseek\n"})
	writeTree(t, home, map[string]string{".openseek/config.toml": "[sandbox]\nnetwork = [\"localhost:" + port + "\"]\n"})
	bin := filepath.Join(ws, "openseek")
	linkOrCopy(t, os.Args[0], bin)
	cmd := "ssh -v -o ProxyCommand='" + bin + " proxy-connect %h %p' -o BatchMode=yes -o ConnectTimeout=20 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -p " + port + " me@localhost true 2>&1 | grep -o 'remote software version [a-z]*'"
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "ssh", Name: "shell", Args: `{"cmd":` + quoteJSON(cmd) + `}`}), llmtest.Text("done"))
	r := openseek(t, ws, "", []string{"HOME=" + home}, append(modelArgs(srv), "run", "ssh")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if out := find[protocol.ToolResult](r.events)[0].Content; !strings.Contains(out, "remote software version openseektest") {
		t.Errorf("ssh did not reach the server through proxy-connect: %q", out)
	}
}

// proxy-connect outside a sandbox with an allowlist says why it cannot
// tunnel, and a port that is no number is refused before anything.
func TestProxyConnectNeedsAProxy(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	r := openseek(t, ws, "", nil, "proxy-connect", "github.com", "22")
	if r.code != 1 || !strings.Contains(r.stderr, "no proxy to tunnel through") || !strings.Contains(r.stderr, "[sandbox] network") {
		t.Errorf("without a proxy: exit %d, stderr %q", r.code, r.stderr)
	}
	r = openseek(t, ws, "", []string{"HTTPS_PROXY=http://127.0.0.1:1"}, "proxy-connect", "github.com", "ssh")
	if r.code != 1 || !strings.Contains(r.stderr, "PORT must be a number") {
		t.Errorf("a port by name: exit %d, stderr %q", r.code, r.stderr)
	}
}
