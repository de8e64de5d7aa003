package sandbox_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/e2etest"
	"github.com/openseek/openseek/internal/netproxy"
)

// TestNetworkAllowlist checks the sandbox with an allowlist: a listed
// host on the host's loopback is reached through the proxy (plain HTTP
// and a CONNECT tunnel), an unlisted one is refused with the message
// naming the config key, a connection that bypasses the proxy finds no
// route, and the proxy logs each connection.
func TestNetworkAllowlist(t *testing.T) {
	t.Parallel()
	e2etest.Need(t, "apt-get install curl", "curl")
	port := strconv.Itoa(listen(t))
	allow, err := netproxy.NewAllowlist([]string{"localhost:" + port})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []netproxy.Conn
	px := &netproxy.Proxy{Allow: allow, Log: func(c netproxy.Conn) { mu.Lock(); conns = append(conns, c); mu.Unlock() }}
	ws, pol := workspace(t)
	pol.Proxy = px
	t.Cleanup(pol.Release) // its helper serves the proxy's listener
	listed := "http://localhost:" + port + "/"
	for _, tc := range []struct{ name, cmd, want string }{
		{"listed", "curl -sS --max-time 10 " + listed, "pong"},
		{"connect", "curl -sS --max-time 10 --proxytunnel " + listed, "pong"},
		{"unlisted", "curl -sS --max-time 10 http://unlisted.invalid:" + port + "/", "openseek: network access to unlisted.invalid:" + port + " is not allowed; add it to [sandbox] network in config"},
		{"connect unlisted", "curl -sS --max-time 10 https://unlisted.invalid/ 2>&1", "403"},
		{"bypass", "curl -sS --max-time 5 --noproxy '*' " + listed + " || echo bypass-failed", "bypass-failed"},
		{"bypass by address", "curl -sS --max-time 5 http://127.0.0.1:" + port + "/ || echo bypass-failed", "bypass-failed"},
	} {
		out, _ := run(t, &pol, ws, tc.cmd)
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s: %q printed %q, want %q", tc.name, tc.cmd, out, tc.want)
		}
		if tc.want == "bypass-failed" && strings.Contains(out, "pong") {
			t.Errorf("%s: %q reached the host: %q", tc.name, tc.cmd, out)
		}
	}
	// Each connection is logged once it ends: two allowed, then refused.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		got := append([]netproxy.Conn(nil), conns...)
		mu.Unlock()
		var allowed, refused int
		for _, c := range got {
			if c.Allowed && c.Host == "localhost" && c.Received > 0 {
				allowed++
			} else if !c.Allowed && c.Host == "unlisted.invalid" {
				refused++
			}
		}
		if allowed == 2 && refused == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("proxy log %+v: want 2 allowed connections to localhost and refusals of unlisted.invalid", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
