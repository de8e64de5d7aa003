package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// proxyFor serves a proxy over allow on a loopback listener; conns
// collects what it logs.
func proxyFor(t *testing.T, allow []string, resolve map[string]string) (addr string, conns func() []Conn) {
	t.Helper()
	a, err := NewAllowlist(allow)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []Conn
	p := &Proxy{Allow: a, Log: func(c Conn) { mu.Lock(); got = append(got, c); mu.Unlock() }}
	if resolve != nil {
		p.Resolve = func(_ context.Context, h string) ([]netip.Addr, error) {
			if ip, ok := resolve[h]; ok {
				return []netip.Addr{netip.MustParseAddr(ip)}, nil
			}
			return nil, fmt.Errorf("no such host %s", h)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go p.Serve(l)
	return l.Addr().String(), func() []Conn { mu.Lock(); defer mu.Unlock(); return append([]Conn(nil), got...) }
}

func proxiedClient(addr string) *http.Client {
	u, _ := url.Parse("http://" + addr)
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
}

func TestProxyHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+r.URL.Path) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	addr, conns := proxyFor(t, []string{"localhost:" + port}, nil)
	c := proxiedClient(addr)

	resp, err := c.Get("http://localhost:" + port + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "hello /x" {
		t.Fatalf("allowed host: %d %q", resp.StatusCode, body)
	}

	// 127.0.0.1 is the same server but not listed: refused, naming it.
	resp, err = c.Get("http://127.0.0.1:" + port + "/y")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "openseek: network access to 127.0.0.1:" + port + " is not allowed; add it to [sandbox] network in config"
	if resp.StatusCode != 403 || strings.TrimSpace(string(body)) != want {
		t.Fatalf("unlisted host: %d %q, want 403 %q", resp.StatusCode, body, want)
	}
	// (A request is logged after its answer went out: in either order.)
	got := waitConns(t, conns, 2)
	slices.SortFunc(got, func(a, b Conn) int { return strings.Compare(a.Host, b.Host) })
	if len(got) != 2 || got[0].Allowed || got[0].Host != "127.0.0.1" || !got[1].Allowed || got[1].Received != int64(len("hello /x")) {
		t.Fatalf("log = %+v", got)
	}
}

func TestProxyConnect(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	_, port, _ := net.SplitHostPort(echo.Addr().String())
	addr, conns := proxyFor(t, []string{"localhost", "*.test.example"}, map[string]string{"svc.test.example": "127.0.0.1", "localhost": "127.0.0.1"})

	tunnel := func(target string) (status string, c net.Conn, r *bufio.Reader) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		r = bufio.NewReader(c)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			c.Close()
			return resp.Status + " " + strings.TrimSpace(string(b)), nil, nil
		}
		return resp.Status, c, r
	}
	status, c, r := tunnel("localhost:" + port)
	if c == nil {
		t.Fatalf("CONNECT to a listed host: %s", status)
	}
	io.WriteString(c, "ping\n")
	line, err := r.ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Fatalf("echo through the tunnel: %q %v", line, err)
	}
	c.(*net.TCPConn).CloseWrite()
	io.Copy(io.Discard, r)
	c.Close()

	// A wildcard that resolves to loopback is refused; so is an unlisted host.
	if status, c, _ := tunnel("svc.test.example:" + port); c != nil || !strings.Contains(status, "403") || !strings.Contains(status, "loopback") {
		t.Errorf("wildcard to loopback: %s", status)
	}
	if status, c, _ := tunnel("169.254.169.254:80"); c != nil || !strings.Contains(status, "403") || !strings.Contains(status, "169.254.169.254:80 is not allowed") {
		t.Errorf("metadata: %s", status)
	}
	// The tunnel is logged once both its directions ended, which may be
	// after the refusals.
	got := waitConns(t, conns, 3)
	lines := map[string]bool{}
	for _, c := range got {
		lines[c.String()] = true
	}
	for _, want := range []string{
		"localhost:" + port + " allowed, 5 bytes sent, 5 received",
		"169.254.169.254:80 refused: " + RefusedText("169.254.169.254", 80),
	} {
		if !lines[want] {
			t.Errorf("log lacks %q: %+v", want, got)
		}
	}
	if len(got) != 3 {
		t.Errorf("log = %+v, want 3 connections", got)
	}
}

// waitConns waits until n connections were logged (a tunnel is logged
// once both its directions ended, after the client saw the end).
func waitConns(t *testing.T, conns func() []Conn, n int) []Conn {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := conns()
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A host no entry covers is asked about when someone may answer: the
// request waits for the answer, and goes through (plain HTTP and
// CONNECT) or is refused by it.
func TestProxyAsks(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "asked-and-allowed") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	a, _ := NewAllowlist([]string{"other.example"})
	var mu sync.Mutex
	var asked []string
	allow := true
	p := &Proxy{Allow: a}
	p.SetAsk(func(_ context.Context, host string, port int) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, fmt.Sprintf("%s:%d", host, port))
		return allow
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go p.Serve(l)
	c := proxiedClient(l.Addr().String())
	get := func(u string) (int, string) {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("http://localhost:" + port + "/"); code != 200 || body != "asked-and-allowed" {
		t.Errorf("allowed when asked: %d %q", code, body)
	}
	// CONNECT, the way curl --proxytunnel and proxy-connect go.
	tc, err := Connect(context.Background(), l.Addr().String(), "localhost:"+port)
	if err != nil {
		t.Fatalf("CONNECT allowed when asked: %v", err)
	}
	tc.Close()
	mu.Lock()
	allow = false
	mu.Unlock()
	if code, body := get("http://localhost:" + port + "/x"); code != 403 || !strings.Contains(body, "is not allowed") {
		t.Errorf("refused when asked: %d %q", code, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 3 || asked[0] != "localhost:"+port {
		t.Errorf("asked %q", asked)
	}
}
