package mcp

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// terminateAfter is how long a stdio server gets to exit after its stdin
	// closes, before SIGTERM (and as long again before SIGKILL).
	terminateAfter = time.Second
	// stderrTail is how much of a stdio server's stderr is kept to explain a
	// failure to start.
	stderrTail = 2048
)

// endpoint is the transport to one server plus what must be cleaned up
// when the session ends.
type endpoint struct {
	transport sdk.Transport
	stdio     *stdioTransport // stdio servers
	stderr    *tailBuffer     // stdio servers
	http      *http.Client    // HTTP servers
}

// newEndpoint prepares (without starting anything) the transport to s.
// dir is the working directory of a stdio server ("" = the engine's).
func newEndpoint(s Server, dir string) *endpoint {
	if s.URL != "" {
		base := http.DefaultTransport.(*http.Transport).Clone()
		client := &http.Client{Transport: headerTransport{base: base, headers: s.Headers}}
		return &endpoint{
			transport: &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: client, MaxRetries: 2},
			http:      client,
		}
	}
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = dir
	cmd.Env = mergeEnv(os.Environ(), s.Env)
	tail := &tailBuffer{max: stderrTail}
	cmd.Stderr = tail
	// A grandchild that inherited stderr must not keep Wait (and so Close)
	// waiting for the pipe to drain.
	cmd.WaitDelay = 100 * time.Millisecond
	ownProcessGroup(cmd)
	st := &stdioTransport{inner: &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}}
	return &endpoint{transport: st, stdio: st, stderr: tail}
}

// stdioTransport is the SDK's CommandTransport, remembering the pid of
// the process it started so that stop can reach its process group from
// another goroutine.
type stdioTransport struct {
	inner *sdk.CommandTransport
	mu    sync.Mutex
	pid   int
}

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err == nil {
		t.mu.Lock()
		t.pid = t.inner.Command.Process.Pid
		t.mu.Unlock()
	}
	return c, err
}

func (t *stdioTransport) started() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pid
}

// stop releases what the session's Close left: the rest of a stdio
// server's process group, an HTTP client's idle connections.
func (e *endpoint) stop() {
	if e.stdio != nil {
		if pid := e.stdio.started(); pid > 0 {
			killGroup(pid)
		}
	}
	if e.http != nil {
		e.http.CloseIdleConnections()
	}
}

// stderrText is the last of the server's stderr, trimmed, or "".
func (e *endpoint) stderrText() string {
	if e.stderr == nil {
		return ""
	}
	return strings.TrimSpace(e.stderr.String())
}

// mergeEnv returns base with extra's entries set over it, in key order so
// the child's environment does not depend on map iteration.
func mergeEnv(base []string, extra map[string]string) []string {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := slices.Clip(base)
	for _, k := range keys {
		// exec.Cmd keeps the last of duplicate keys.
		out = append(out, k+"="+extra[k])
	}
	return out
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}

func (t headerTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
