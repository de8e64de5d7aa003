package sandbox_test

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/e2etest"
	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/netproxy"
	"github.com/openseek/openseek/internal/sandbox"
)

// BenchmarkSpawn measures starting and finishing `true` through
// jobs.Spawn, unsandboxed and in the sandbox with the network off and on,
// as a session's command (a helper of its own), and on the re-exec path.
func BenchmarkSpawn(b *testing.B) {
	ws := b.TempDir()
	off := sandbox.DefaultPolicy(ws)
	on := off
	on.Network = true
	session := off
	session.Session = "bench"
	defer session.Release()
	allow, _ := netproxy.NewAllowlist([]string{"example.com"})
	proxied := off
	proxied.Proxy = &netproxy.Proxy{Allow: allow}
	proxied.Session = "bench-allowlist"
	defer proxied.Release()
	for _, bc := range []struct {
		name   string
		pol    *sandbox.Policy
		reexec bool
	}{{"unsandboxed", nil, false}, {"network-off", &off, false}, {"network-on", &on, false},
		{"network-off-session", &session, false}, {"network-off-reexec", &off, true},
		{"allowlist-session", &proxied, false}, {"allowlist-reexec", &proxied, true}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.reexec {
				b.Setenv(sandbox.ReexecEnv, "1")
			}
			spawnTrue(b, ws, bc.pol)
		})
	}
}

// spawnTrue runs `true` in the sandbox pol, in ws, for each of b's
// iterations.
func spawnTrue(b *testing.B, ws string, pol *sandbox.Policy) {
	spool := b.TempDir()
	for b.Loop() {
		p, err := jobs.Spawn(jobs.Spec{Command: "true", Dir: ws, Sandbox: pol}, spool)
		if err != nil {
			b.Fatal(err)
		}
		<-p.Done()
		if p.ExitCode() != 0 {
			b.Fatalf("exit %d", p.ExitCode())
		}
		p.Release(time.Second)
	}
}

// BenchmarkDetect measures the start-up probe.
func BenchmarkDetect(b *testing.B) {
	for b.Loop() {
		sandbox.Detect()
	}
}

// BenchmarkProxyDownload measures a 10 MB download by curl in the
// sandbox from a server on the host: with the network on (direct), and
// with an allowlist, through the proxy (plain HTTP, and a CONNECT tunnel).
func BenchmarkProxyDownload(b *testing.B) {
	e2etest.Need(b, "apt-get install curl", "curl")
	body := bytes.Repeat([]byte("0123456789abcdef"), 10<<20/16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	ws := b.TempDir()
	on := sandbox.DefaultPolicy(ws)
	on.Network = true
	allow, err := netproxy.NewAllowlist([]string{"localhost:" + strconv.Itoa(port)})
	if err != nil {
		b.Fatal(err)
	}
	proxied := sandbox.DefaultPolicy(ws)
	proxied.Proxy = &netproxy.Proxy{Allow: allow}
	proxied.Session = "bench-proxy"
	defer proxied.Release()
	url := "http://localhost:" + strconv.Itoa(port) + "/"
	for _, bc := range []struct {
		name, cmd string
		pol       *sandbox.Policy
	}{
		{"direct", "curl -sf --noproxy '*' -o /dev/null " + url, &on},
		{"proxy", "curl -sf -o /dev/null " + url, &proxied},
		{"proxy-connect", "curl -sf --proxytunnel -o /dev/null " + url, &proxied},
	} {
		b.Run(bc.name, func(b *testing.B) {
			spool := b.TempDir()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				p, err := jobs.Spawn(jobs.Spec{Command: bc.cmd, Dir: ws, Sandbox: bc.pol}, spool)
				if err != nil {
					b.Fatal(err)
				}
				<-p.Done()
				if p.ExitCode() != 0 {
					out, _ := p.Read(0, p.Output().Chars)
					b.Fatalf("exit %d: %s", p.ExitCode(), out)
				}
				p.Release(time.Second)
			}
		})
	}
}
