package sandbox_test

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"github.com/openseek/openseek/internal/e2etest"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

func TestMain(m *testing.M) {
	sandbox.Main()
	if ws, ok := os.LookupEnv(escapeHelper); ok {
		runEscapes(ws)
		os.Exit(0)
	}
	// Two at a time, whatever the CPU count: the helper tests expect
	// their helper to live from one command to the next, and a process
	// keeps at most maxHelpers (4) idle helpers, evicting the least
	// recently used; a test may hold two.
	sandboxtest.DefaultParallel(2)
	goleak.VerifyTestMain(sandboxtest.StartPaths{M: m})
}

// run runs command through jobs.Spawn with policy pol (nil: unsandboxed)
// in dir and returns its output and exit status.
func run(t *testing.T, pol *sandbox.Policy, dir, command string) (string, int) {
	t.Helper()
	p, err := jobs.Spawn(jobs.Spec{Command: command, Dir: dir, Sandbox: pol}, t.TempDir())
	if err != nil {
		t.Fatalf("spawn %q: %v", command, err)
	}
	defer p.Release(100 * time.Millisecond)
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		out, _ := p.Read(0, p.Output().Chars)
		t.Fatalf("%q did not finish; output so far: %q", command, out)
	}
	out, err := p.Read(0, p.Output().Chars)
	if err != nil {
		t.Fatalf("read output: %v", err)
	}
	return out, p.ExitCode()
}

// workspace makes a workspace with a .git/config and an .openseek
// directory and returns it with its default policy.
func workspace(t *testing.T) (string, sandbox.Policy) {
	t.Helper()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/config":           "[core]\n",
		".openseek/config.toml": "model = \"m\"\n",
		"README":                "hello\n",
	})
	return ws, sandbox.DefaultPolicy(ws)
}

// writeFiles writes files (path under dir: content), making their
// directories.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func unique(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	return "openseek-sandbox-test-" + hex.EncodeToString(b)
}

// TestWrites checks where a sandboxed command may write: each case names a
// file that must (or must not) exist with the written content afterwards.
func TestWrites(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	name := unique(t)
	tests := []struct {
		name   string
		target string // file the command writes
		cwd    string
		cmd    string // %s is replaced by the target
		allow  bool
		// network on: /tmp is the host's (off, it is private; see
		// TestPrivateTmp)
		network bool
	}{
		{"etc", "/etc/" + name, ws, "echo pwned > %s", false, false},
		{"home", filepath.Join(home, name), ws, "echo pwned > %s", false, false},
		{"tmp dot dot root", "/tmp/../root/" + name, ws, "echo pwned > %s", false, false},
		{"git config", filepath.Join(ws, ".git/config"), ws, "echo pwned >> %s", false, false},
		{"git config from inside .git", filepath.Join(ws, ".git/config"), filepath.Join(ws, ".git"), "echo pwned >> config", false, false},
		{"new file in .git", filepath.Join(ws, ".git/hooks-pwned"), ws, "echo pwned > %s", false, false},
		{"openseek config", filepath.Join(ws, ".openseek/config.toml"), ws, "echo pwned > %s", false, false},
		{"workspace", filepath.Join(ws, "out.txt"), ws, "echo pwned > %s", true, false},
		{"workspace subdir", filepath.Join(ws, "sub/out.txt"), ws, "mkdir -p sub && echo pwned > %s", true, false},
		{"tmp", filepath.Join(tmp, "out.txt"), ws, "echo pwned > %s", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := filepath.Clean(tt.target)
			t.Cleanup(func() {
				if !strings.HasPrefix(target, ws) && !strings.HasPrefix(target, tmp) {
					os.Remove(target) // only there if the protection broke
				}
			})
			p := pol
			p.Network = tt.network
			out, code := run(t, &p, tt.cwd, strings.ReplaceAll(tt.cmd, "%s", tt.target))
			data, _ := os.ReadFile(target)
			wrote := strings.Contains(string(data), "pwned")
			if wrote != tt.allow || (code == 0) != tt.allow {
				t.Fatalf("write %s: exit %d, written %v, want allowed=%v; output:\n%s", tt.target, code, wrote, tt.allow, out)
			}
		})
	}
}

// TestProtectedPathsCannotBeReplaced checks that .git and .openseek can be
// neither removed, renamed nor swapped for a symlink.
func TestProtectedPathsCannotBeReplaced(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, cmd string }{
		{"openseek by symlink", "rm -rf .openseek; ln -sfn /tmp .openseek"},
		{"openseek renamed then symlink", "mv .openseek .old && ln -s /tmp .openseek"},
		{"openseek by symlink via rename", "ln -s /tmp link && mv -T link .openseek"},
		{"git removed", "rm -rf .git"},
		{"git renamed", "mv .git .git-old && mkdir .git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, pol := workspace(t)
			out, code := run(t, &pol, ws, tt.cmd)
			if code == 0 {
				t.Errorf("%q succeeded; output:\n%s", tt.cmd, out)
			}
			for _, dir := range []string{".openseek", ".git"} {
				fi, err := os.Lstat(filepath.Join(ws, dir))
				if err != nil || !fi.IsDir() {
					t.Errorf("%s after %q: %v, %v (want the original directory)", dir, tt.cmd, fi, err)
				}
			}
			for _, f := range []string{".git/config", ".openseek/config.toml"} {
				if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
					t.Errorf("%s after %q: %v", f, tt.cmd, err)
				}
			}
		})
	}
}

// TestWorkspaceInsideAProtectedDirectory: a workspace that lies inside
// a read-only path (a fleet task's or a best-of-N run's workspace under
// ~/.openseek) is writable; its own .git and .openseek, the files beside
// it and those of the protected directory stay read-only.
func TestWorkspaceInsideAProtectedDirectory(t *testing.T) {
	t.Parallel()
	outer := t.TempDir()
	writeFiles(t, outer, map[string]string{
		"config.toml":              "model = \"m\"\n",
		"work/a/.git/config":       "[core]\n",
		"work/a/.openseek/x.jsonl": "{}\n",
		"work/b/README":            "other task\n",
	})
	ws := filepath.Join(outer, "work", "a")
	pol := sandbox.DefaultPolicy(ws)
	pol.ReadOnly = append(pol.ReadOnly, outer)
	// Network on: /tmp, where outer is, is then the host's (off, the
	// command's own /tmp would take the writes outside the workspace).
	pol.Network = true
	for _, tt := range []struct {
		target string
		allow  bool
	}{
		{filepath.Join(ws, "hello.txt"), true},
		{filepath.Join(ws, "sub", "hello.txt"), true},
		{filepath.Join(ws, ".git", "config"), false},
		{filepath.Join(ws, ".openseek", "x.jsonl"), false},
		{filepath.Join(outer, "config.toml"), false},
		{filepath.Join(outer, "work", "b", "README"), false},
	} {
		out, code := run(t, &pol, ws, "mkdir -p "+filepath.Dir(tt.target)+" && echo pwned >> "+tt.target)
		data, _ := os.ReadFile(tt.target)
		if wrote := strings.Contains(string(data), "pwned"); wrote != tt.allow || (code == 0) != tt.allow {
			t.Errorf("write %s: exit %d, written %v, want allowed=%v; output:\n%s", tt.target, code, wrote, tt.allow, out)
		}
	}
}

func TestNoNewPrivs(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	tests := []struct {
		name string
		pol  *sandbox.Policy
		want string
	}{
		{"sandboxed", &pol, "NoNewPrivs:\t1"},
		{"unsandboxed", nil, "NoNewPrivs:\t0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := run(t, tt.pol, ws, "grep NoNewPrivs /proc/self/status")
			if code != 0 || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, output %q, want %q", code, out, tt.want)
			}
		})
	}
}

// listen serves a minimal HTTP response on a local port until the test
// ends.
func listen(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				// Read the whole request head, answer, then half-close and
				// drain: closing with unread input would reset the
				// connection under the client.
				var req []byte
				buf := make([]byte, 1024)
				for !strings.Contains(string(req), "\r\n\r\n") {
					n, err := c.Read(buf)
					req = append(req, buf[:n]...)
					if err != nil {
						return
					}
				}
				io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\npong\n")
				c.(*net.TCPConn).CloseWrite()
				io.Copy(io.Discard, c)
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// dnsName is a name the test machines resolve through DNS (it is not in
// /etc/hosts): the Go module proxy, the one remote host CI can reach.
const dnsName = "proxy.golang.org"

func TestNetwork(t *testing.T) {
	t.Parallel()
	port := strconv.Itoa(listen(t))
	url := "http://127.0.0.1:" + port + "/"
	tests := []struct{ name, cmd string }{
		{"curl", "curl -sS --noproxy '*' --max-time 5 " + url},
		{"wget", "wget -q --no-proxy -T 5 -t 1 -O - " + url},
		{"nc", "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 5 127.0.0.1 " + port},
		{"bash dev tcp", "exec 3<>/dev/tcp/127.0.0.1/" + port + " && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3"},
		{"getent hosts", "getent hosts " + dnsName},
	}
	install := map[string]string{"curl": "apt-get install curl", "wget": "apt-get install wget", "nc": "apt-get install netcat-openbsd", "getent hosts": "apt-get install libc-bin"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if i, ok := install[tt.name]; ok {
				e2etest.Need(t, i, strings.Fields(tt.name)[0])
			}
			ws, pol := workspace(t)
			on := pol
			on.Network = true
			out, code := run(t, &on, ws, tt.cmd)
			if code != 0 {
				t.Fatalf("network on: %q failed with exit %d (is the tool installed, does the host resolve %s?):\n%s", tt.cmd, code, dnsName, out)
			}
			if tt.name != "getent hosts" && !strings.Contains(out, "pong") {
				t.Fatalf("network on: %q printed %q, want pong", tt.cmd, out)
			}
			out, code = run(t, &pol, ws, tt.cmd)
			if code == 0 || strings.Contains(out, "pong") {
				t.Fatalf("network off: %q succeeded (exit %d):\n%s", tt.cmd, code, out)
			}
		})
	}
}

// TestEmptyNetworkNamespace checks that with the network off the command
// sees no interface but loopback (whose /proc/net view is per namespace),
// so no route leads anywhere.
func TestEmptyNetworkNamespace(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	tests := []struct {
		name    string
		network bool
	}{
		{"off", false},
		{"on", true},
	}
	host, err := os.ReadFile("/proc/net/dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pol
			p.Network = tt.network
			out, code := run(t, &p, ws, "tail -n +3 /proc/net/dev | cut -d: -f1")
			ifaces := strings.Fields(out)
			if code != 0 || len(ifaces) == 0 {
				t.Fatalf("exit %d, output %q", code, out)
			}
			if tt.network {
				if len(ifaces) != len(strings.Split(strings.TrimSpace(string(host)), "\n"))-2 {
					t.Fatalf("network on: interfaces %v, want the host's:\n%s", ifaces, host)
				}
				return
			}
			if len(ifaces) != 1 || ifaces[0] != "lo" {
				t.Fatalf("network off: interfaces %v, want lo alone", ifaces)
			}
		})
	}
}

// TestSetupFailureRunsNothing checks that a sandbox that cannot be set up
// does not run the command at all.
func TestSetupFailureRunsNothing(t *testing.T) {
	t.Parallel()
	ws, _ := workspace(t)
	pol := sandbox.DefaultPolicy(filepath.Join(ws, "missing"))
	marker := filepath.Join(ws, "ran")
	out, code := run(t, &pol, ws, "touch "+marker)
	if code != 126 || !strings.Contains(out, "openseek sandbox:") {
		t.Fatalf("exit %d, output %q: want 126 and the reason", code, out)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the command ran: %v", err)
	}
}

// TestKillReachesGroup checks that killing a sandboxed command kills the
// processes it started too, wherever they went: its own group, a new
// session, or nohup.
func TestKillReachesGroup(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	marks := []string{unique(t), unique(t), unique(t)}
	cmd := "(exec -a " + marks[0] + " sleep 300) & setsid bash -c 'exec -a " + marks[1] + " sleep 300' & nohup bash -c 'exec -a " + marks[2] + " sleep 300' >/dev/null 2>&1 & wait"
	p, err := jobs.Spawn(jobs.Spec{Command: cmd, Dir: ws, Sandbox: &pol}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(0)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && len(hostProcesses(t, marks...)) < len(marks) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := hostProcesses(t, marks...); len(got) < len(marks) {
		out, _ := p.Read(0, p.Output().Chars)
		t.Fatalf("background commands not all started (%v); output:\n%s", got, out)
	}
	p.Kill(200 * time.Millisecond)
	if code := p.ExitCode(); code != 128+15 && code != 128+9 {
		out, _ := p.Read(0, p.Output().Chars)
		t.Errorf("exit code %d, want death by signal; output:\n%s", code, out)
	}
	waitGone(t, marks, deadline)
}

// TestBackgroundDiesWithCommand checks that what a command leaves running
// when it exits on its own (`cmd &`, `setsid cmd &`, nohup) ends with it:
// the command is the PID namespace's only way in.
func TestBackgroundDiesWithCommand(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, cmd string }{
		{"ampersand", "(exec -a %s sleep 300) &"},
		{"setsid", "setsid bash -c 'exec -a %s sleep 300' &"},
		{"nohup", "nohup bash -c 'exec -a %s sleep 300' >/dev/null 2>&1 &"},
		{"double fork", "( ( exec -a %s sleep 300 & ) & )"},
		{"disown", "(exec -a %s sleep 300) & disown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, pol := workspace(t)
			mark := unique(t)
			// Wait (bounded) until the background command runs, then report it.
			cmd := strings.ReplaceAll(tt.cmd, "%s", mark) + "\nfor i in $(seq 200); do ps -e -o args= | grep -q '^" + mark + "' && break; sleep 0.02; done; ps -e -o args= | grep -c '^" + mark + "'"
			out, code := run(t, &pol, ws, cmd)
			if code != 0 || strings.TrimSpace(out) == "0" {
				t.Fatalf("the background command did not start (exit %d):\n%s", code, out)
			}
			waitGone(t, []string{mark}, time.Now().Add(10*time.Second))
		})
	}
}

// TestOwnProcessView checks that a sandboxed command sees only its own
// processes: not the agent, whose command line may hold a key.
func TestOwnProcessView(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	out, code := run(t, &pol, ws, "ls /proc | grep -c '^[0-9]'; test -e /proc/"+strconv.Itoa(os.Getpid())+" && echo parent visible; echo $$")
	lines := strings.Fields(out)
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, output %q", code, out)
	}
	if n, _ := strconv.Atoi(lines[0]); n > 4 {
		t.Errorf("the command sees %d processes, want its own few:\n%s", n, out)
	}
	if lines[1] == "1" {
		t.Errorf("the command is the namespace's init (pid 1); want a supervisor in front of it")
	}
}

// hostProcesses returns the command lines of the host's processes whose
// name (argv[0], set with exec -a) is one of marks.
func hostProcesses(t *testing.T, marks ...string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(b) == 0 {
			continue // gone, or a zombie waiting for its reaper
		}
		line := strings.ReplaceAll(string(b), "\x00", " ")
		for _, m := range marks {
			if strings.HasPrefix(line, m+" ") {
				out = append(out, line)
			}
		}
	}
	return out
}

// waitGone fails the test when processes named by marks are still alive
// at the deadline (they are killed then, so nothing leaks).
func waitGone(t *testing.T, marks []string, deadline time.Time) {
	t.Helper()
	for time.Now().Before(deadline) {
		if len(hostProcesses(t, marks...)) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("processes outlived the command: %q", hostProcesses(t, marks...))
}

// TestPrivateTmp checks that without network a command has a /tmp and a
// /run of its own: the host's files and UNIX sockets there are out of
// sight and reach, what it writes there stays there, and the workspace
// (itself in /tmp here) is still the host's.
func TestPrivateTmp(t *testing.T) {
	t.Parallel()
	e2etest.Need(t, "apt-get install netcat-openbsd", "nc") // reaches a host socket
	ws, pol := workspace(t)
	hostDir := t.TempDir()
	hostFile := filepath.Join(hostDir, "host.txt")
	if err := os.WriteFile(hostFile, []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(hostDir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			got.Add(1)
			io.WriteString(c, "host socket\n")
			c.Close()
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	if err := os.Chmod(hostDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	leak := filepath.Join("/tmp", unique(t))
	t.Cleanup(func() { os.Remove(leak) })
	cmd := "cat " + hostFile + "; nc -U -w 2 " + sock + " </dev/null; ls /run | wc -l; echo written > " + leak + "; echo in-ws > " + filepath.Join(ws, "ws.txt") + "; echo done"
	tests := []struct {
		name     string
		network  bool
		reach    bool // the host's /tmp is visible
		runEmpty bool
	}{
		{"network off", false, false, true},
		{"network on", true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pol
			p.Network = tt.network
			before := got.Load()
			out, _ := run(t, &p, ws, cmd)
			if !strings.HasSuffix(strings.TrimSpace(out), "done") {
				t.Fatalf("the command did not finish:\n%s", out)
			}
			if strings.Contains(out, "host\n") != tt.reach || (got.Load() > before) != tt.reach || strings.Contains(out, "host socket") != tt.reach {
				t.Errorf("host file and socket reached: %v, want %v (connections %d):\n%s", !tt.reach, tt.reach, got.Load()-before, out)
			}
			if _, err := os.Stat(leak); (err == nil) != tt.reach {
				t.Errorf("write to /tmp reached the host: %v, want %v", err == nil, tt.reach)
			}
			os.Remove(leak)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if runEmpty := len(lines) >= 2 && lines[len(lines)-2] == "0"; runEmpty != tt.runEmpty {
				t.Errorf("/run empty: %v, want %v:\n%s", runEmpty, tt.runEmpty, out)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "ws.txt")); string(b) != "in-ws\n" {
				t.Errorf("the workspace write did not reach the host: %q", b)
			}
		})
	}
}

// TestAsOrdinaryUser runs this package's sandbox tests again as an
// ordinary user: the sandbox must work without root.
func TestAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^Test(Writes|WorkspaceInsideAProtectedDirectory|ProtectedPathsCannotBeReplaced|NoNewPrivs|Network|EmptyNetworkNamespace|SetupFailureRunsNothing|KillReachesGroup|BackgroundDiesWithCommand|OwnProcessView|EscapesRefused|NoCapabilities|PrivateTmp|ReadOnlyWorkspace|CachesPrivate|HelperServesCommands|HelperConcurrent|HelperKilledIsRebuilt|HelperSurvivesHostileCommands|HelperProtectsPathsThatAppearLater|PrepareLeavesTheWorkspaceAlone|SessionsHaveTheirOwnTmp|ReleaseWaitsForRunningCommands|NetworkAllowlist)$")
}

// TestReadOnlyWorkspace checks plan mode's sandbox: the workspace and the
// caches cannot be written, the private /tmp can.
func TestReadOnlyWorkspace(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	pol.ReadOnlyWorkspace = true
	cache := t.TempDir()
	pol.WritableRoots = append(pol.WritableRoots, cache)
	tests := []struct {
		name, cmd string
		ok        bool
	}{
		{"new file", "echo x > new.txt", false},
		{"append", "echo x >> README", false},
		{"remove", "rm README", false},
		{"rename", "mv README R2", false},
		{"mkdir", "mkdir sub", false},
		{"touch", "touch README", false},
		{"private tmp", "echo x > /tmp/plan-scratch && cat /tmp/plan-scratch", true},
		{"read", "cat README", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := run(t, &pol, ws, tt.cmd)
			if (code == 0) != tt.ok {
				t.Fatalf("%q: exit %d, want success %v:\n%s", tt.cmd, code, tt.ok, out)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(ws, "README")); err != nil || string(b) != "hello\n" {
		t.Errorf("README changed: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Errorf("new.txt was created")
	}
	// A writable root outside the temporary directories is read-only; one
	// inside /tmp is out of sight, so what the command writes there stays
	// in its private /tmp.
	out, _ := run(t, &pol, ws, "echo x > "+filepath.Join(cache, "f"))
	if _, err := os.Stat(filepath.Join(cache, "f")); err == nil {
		t.Errorf("the command wrote into the writable root %s:\n%s", cache, out)
	}
	home, err := os.UserHomeDir()
	if err == nil {
		p := pol
		p.WritableRoots = append(p.WritableRoots, home)
		target := filepath.Join(home, unique(t))
		out, code := run(t, &p, ws, "echo x > "+target)
		if _, err := os.Stat(target); err == nil || code == 0 {
			os.Remove(target)
			t.Errorf("the command wrote into the writable root %s (exit %d):\n%s", home, code, out)
		}
	}
}

// TestCachesPrivate checks the language caches: a command reads the
// host's cache but cannot write it (a planted module file would run in the
// user's next build), and its tools are pointed at private caches in the
// workspace's .openseek/cache, which it can write and which persist.
func TestCachesPrivate(t *testing.T) {
	t.Parallel()
	ws, pol := workspace(t)
	cache := t.TempDir()
	if err := os.WriteFile(filepath.Join(cache, "host.txt"), []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pol.Caches = []string{cache}
	tests := []struct {
		name, cmd, want string
		ok              bool
	}{
		{"read the host's cache", "cat " + cache + "/host.txt", "host\n", true},
		{"plant in the host's cache", "echo planted > " + cache + "/init.go", "", false},
		{"change the host's cache", "echo changed > " + cache + "/host.txt", "", false},
		{"tools point at the private caches", `echo "$GOCACHE $GOMODCACHE $npm_config_cache $XDG_CACHE_HOME"`,
			strings.Join([]string{pol.CacheDir + "/go-build", pol.CacheDir + "/go-mod", pol.CacheDir + "/npm", pol.CacheDir + "/xdg"}, " ") + "\n", true},
		{"write the private cache", `mkdir -p "$GOCACHE" && echo mine > "$GOCACHE/f" && cat "$GOCACHE/f"`, "mine\n", true},
		{"it persists", `cat "$GOCACHE/f"`, "mine\n", true},
	}
	for _, tt := range tests {
		out, code := run(t, &pol, ws, tt.cmd)
		if (code == 0) != tt.ok || (tt.ok && out != tt.want) {
			t.Errorf("%s: exit %d, output %q; want success %v and %q", tt.name, code, out, tt.ok, tt.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(cache, "host.txt")); string(b) != "host\n" {
		t.Errorf("the host's cache file changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(cache, "init.go")); err == nil {
		t.Errorf("the command planted a file in the host's cache")
	}
}
