package netproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Conn is one connection (a CONNECT tunnel or one proxied HTTP request)
// as Log receives it when it ends.
type Conn struct {
	Host    string
	Port    int
	Allowed bool
	// Sent is what the command sent to the host, Received what came back.
	Sent, Received int64
	// Err says why a connection was refused or failed ("" when it worked).
	Err string

	exact bool // host:port was named exactly (see checkOrAsk)
}

// String is the connection as one line of the session log.
func (c Conn) String() string {
	hp := net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
	if !c.Allowed {
		return hp + " refused: " + c.Err
	}
	s := fmt.Sprintf("%s allowed, %d bytes sent, %d received", hp, c.Sent, c.Received)
	if c.Err != "" {
		s += " (" + c.Err + ")"
	}
	return s
}

// Proxy serves the listeners the sandbox hands it.
type Proxy struct {
	Allow *Allowlist
	// Resolve looks a name up (nil: the system's resolver). Tests map
	// names with it.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Log gets every connection once it ends; nil logs nothing.
	Log func(Conn)
	// DialTimeout bounds a connection's set-up (0: 30 s).
	DialTimeout time.Duration

	once      sync.Once
	transport *http.Transport
	rp        *httputil.ReverseProxy
	buffers   sync.Pool

	askMu sync.Mutex
	ask   func(ctx context.Context, host string, port int) bool
}

// SetAsk makes the proxy ask fn about a host:port no entry covers
// (someone may be there to answer: the approval dialog) before refusing
// it; the connection waits for the answer. nil refuses at once.
func (p *Proxy) SetAsk(fn func(ctx context.Context, host string, port int) bool) {
	p.askMu.Lock()
	p.ask = fn
	p.askMu.Unlock()
}

// RefusedText is the message a refused host:port gets.
func RefusedText(host string, port int) string {
	return "openseek: network access to " + net.JoinHostPort(host, strconv.Itoa(port)) +
		" is not allowed; add it to [sandbox] network in config"
}

// Serve answers proxy requests on l until l is closed.
func (p *Proxy) Serve(l net.Listener) error {
	p.init()
	srv := &http.Server{Handler: p, ReadHeaderTimeout: time.Minute}
	err := srv.Serve(l)
	if errors.Is(err, net.ErrClosed) || errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func (p *Proxy) init() {
	p.once.Do(func() {
		p.transport = &http.Transport{
			Proxy:                 nil,
			DialContext:           p.dialChecked,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       30 * time.Second,
			ResponseHeaderTimeout: 5 * time.Minute,
		}
		p.rp = &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.Out.URL = pr.In.URL
				pr.Out.Host = pr.In.Host
			},
			Transport:  p.transport,
			BufferPool: bufferPool{&p.buffers},
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				c, _ := r.Context().Value(connKey{}).(*Conn)
				if c != nil {
					c.Err = err.Error()
				}
				if errors.Is(err, errSpecial) {
					if c != nil {
						c.Allowed = false
					}
					http.Error(w, "openseek: network access to "+r.URL.Host+" is not allowed: "+err.Error(), http.StatusForbidden)
					return
				}
				http.Error(w, "openseek: "+err.Error(), http.StatusBadGateway)
			},
		}
	})
}

// CloseIdle closes the kept-alive connections of proxied HTTP requests
// (a session that ends calls it; tunnels end with their commands).
func (p *Proxy) CloseIdle() {
	p.init()
	p.transport.CloseIdleConnections()
}

// ServeHTTP is the proxy's one handler: CONNECT tunnels, absolute-URI
// requests forwarded.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.init()
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Scheme != "http" {
		http.Error(w, "openseek: this is the sandbox's network proxy: send absolute http:// URLs or CONNECT", http.StatusBadRequest)
		return
	}
	host, port := r.URL.Hostname(), 80
	if s := r.URL.Port(); s != "" {
		port, _ = strconv.Atoi(s)
	}
	c := Conn{Host: host, Port: port}
	msg, exact := p.checkOrAsk(r.Context(), host, port)
	if msg != "" {
		p.refuse(w, c, msg)
		return
	}
	c.Allowed, c.exact = true, exact
	sent := &countReader{r: r.Body}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = sent
	}
	cw := &countWriter{ResponseWriter: w}
	p.rp.ServeHTTP(cw, r.WithContext(withConn(r.Context(), &c)))
	c.Sent, c.Received = sent.n.Load(), cw.n
	p.log(c)
}

// connect opens a tunnel to r.Host for the command.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, ps, err := net.SplitHostPort(r.Host)
	port, perr := strconv.Atoi(ps)
	if err != nil || perr != nil {
		http.Error(w, "openseek: CONNECT needs host:port, not "+r.Host, http.StatusBadRequest)
		return
	}
	c := Conn{Host: host, Port: port}
	msg, exact := p.checkOrAsk(r.Context(), host, port)
	if msg != "" {
		p.refuse(w, c, msg)
		return
	}
	c.Allowed = true
	up, err := p.dial(r.Context(), host, port, exact)
	if err != nil {
		c.Err = err.Error()
		if errors.Is(err, errSpecial) {
			c.Allowed = false
			p.refuse(w, c, err.Error())
			return
		}
		http.Error(w, "openseek: "+err.Error(), http.StatusBadGateway)
		p.log(c)
		return
	}
	defer up.Close()
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "openseek: cannot tunnel here", http.StatusInternalServerError)
		return
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer down.Close()
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// What the client sent after its request (already buffered) first.
		n, _ := io.Copy(up, rw.Reader)
		c.Sent = n
		closeWrite(up)
	}()
	c.Received, _ = io.Copy(down, up)
	closeWrite(down)
	wg.Wait()
	p.log(c)
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	} else {
		c.Close()
	}
}

// check says why host:port may not be reached ("" when it may).
func (p *Proxy) check(host string, port int) string {
	if ok, _ := p.Allow.Allows(host, port); !ok {
		return RefusedText(normHost(host), port)
	}
	return ""
}

// checkOrAsk is check, asking about what no entry covers when someone
// may answer. exact: host:port was named exactly (an entry, or the
// answer), which a loopback or link-local address needs.
func (p *Proxy) checkOrAsk(ctx context.Context, host string, port int) (msg string, exact bool) {
	msg = p.check(host, port)
	if msg == "" {
		_, exact = p.Allow.Allows(host, port)
		return "", exact
	}
	p.askMu.Lock()
	ask := p.ask
	p.askMu.Unlock()
	if ask != nil && ask(ctx, normHost(host), port) {
		return "", true
	}
	return msg, false
}

func (p *Proxy) refuse(w http.ResponseWriter, c Conn, msg string) {
	c.Allowed, c.Err = false, msg
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	io.WriteString(w, msg+"\n")
	p.log(c)
}

func (p *Proxy) log(c Conn) {
	if p.Log != nil {
		p.Log(c)
	}
}

// errSpecial marks an address a wildcard may not lead to.
var errSpecial = errors.New("address not allowed")

type connKey struct{}

func withConn(ctx context.Context, c *Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// dialChecked is the HTTP transport's dial: addr is the host:port of
// the request whose Conn, in ctx, was allowed (listed, or allowed when
// asked); any other dial is refused.
func (p *Proxy) dialChecked(ctx context.Context, _, addr string) (net.Conn, error) {
	host, ps, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, _ := strconv.Atoi(ps)
	c, _ := ctx.Value(connKey{}).(*Conn)
	if c == nil || !c.Allowed || normHost(c.Host) != normHost(host) || c.Port != port {
		return nil, errors.New(RefusedText(normHost(host), port))
	}
	return p.dial(ctx, host, port, c.exact)
}

// dial resolves host (here, outside the sandbox) and connects to the
// first address that answers, refusing special addresses unless host
// was named exactly.
func (p *Proxy) dial(ctx context.Context, host string, port int, exact bool) (net.Conn, error) {
	timeout := p.DialTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	addrs, err := p.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	var last error
	for _, a := range addrs {
		a = a.Unmap()
		if special(a) && !exact {
			last = fmt.Errorf("%w: %s resolves to %s (loopback, link-local or metadata); name it exactly in [sandbox] network to allow it", errSpecial, host, a)
			continue
		}
		conn, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		last = err
	}
	if last == nil {
		last = fmt.Errorf("%s has no address", host)
	}
	return nil, last
}

func (p *Proxy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(normHost(host)); err == nil {
		return []netip.Addr{a}, nil
	}
	if p.Resolve != nil {
		return p.Resolve(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// metadataV6 is the cloud metadata service's IPv6 address (AWS).
var metadataV6 = netip.MustParseAddr("fd00:ec2::254")

// special reports whether a is an address no wildcard may lead to.
func special(a netip.Addr) bool {
	return a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsInterfaceLocalMulticast() || a == metadataV6
}

// bufferPool lends the HTTP proxy's copies 256 KiB buffers: a 10 MB
// download took a quarter less time than with the default 32 KiB.
type bufferPool struct{ p *sync.Pool }

func (b bufferPool) Get() []byte {
	if buf, ok := b.p.Get().(*[]byte); ok {
		return *buf
	}
	return make([]byte, 256<<10)
}

func (b bufferPool) Put(buf []byte) { b.p.Put(&buf) }

type countReader struct {
	r io.ReadCloser
	n atomic.Int64
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

func (c *countReader) Close() error { return c.r.Close() }

type countWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	return n, err
}

func (c *countWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// loopbackNames are the names a command's own loopback answers to.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// NoProxy is the NO_PROXY of a sandboxed command: the loopback names
// stay the sandbox's own (a test server a command started), except those
// the allowlist names exactly, which mean the host's and go through the
// proxy.
func (p *Proxy) NoProxy() string {
	var out []string
	for _, n := range loopbackNames {
		if !p.Allow.Names(n) {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}
