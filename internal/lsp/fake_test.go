package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/goleak"

	"github.com/openseek/openseek/internal/sandbox"
)

// fakeEnv selects, in a child started from this test binary, the
// misbehaving language server it plays instead of running the tests.
const fakeEnv = "OPENSEEK_FAKE_LSP"

func TestMain(m *testing.M) {
	sandbox.Main() // a sandboxed server is this binary first
	if mode := os.Getenv(fakeEnv); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	// Servers closed by the tests leave no goroutine behind.
	goleak.VerifyTestMain(m)
}

// pipeRWC is this process's stdio as one stream.
type pipeRWC struct{}

func (pipeRWC) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (pipeRWC) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (pipeRWC) Close() error                { return nil }

// fakeServer plays a broken server: "hang" never answers anything,
// "silent" starts but never publishes diagnostics, "crash" starts and
// dies on the first document it is sent.
func fakeServer(mode string) {
	if mode == "hang" {
		time.Sleep(time.Hour)
		return
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipeRWC{}))
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		switch req.Method() {
		case protocol.MethodInitialize:
			return reply(ctx, map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}}, nil)
		case protocol.MethodTextDocumentDidOpen, protocol.MethodTextDocumentDidChange:
			if mode == "crash" {
				os.Stderr.WriteString("fake server: crashing on purpose\n")
				os.Exit(3)
			}
		case protocol.MethodShutdown:
			return reply(ctx, nil, nil)
		case protocol.MethodExit:
			os.Exit(0)
		}
		return reply(ctx, nil, nil)
	})
	<-conn.Done()
}

func fakeManager(t *testing.T, mode string, wait time.Duration) (*Manager, string) {
	t.Setenv(fakeEnv, mode)
	ws := t.TempDir()
	path := filepath.Join(ws, "a.fake")
	writeFile(t, path, "one\n")
	m := newManager(t, ws, Options{
		Wait:        wait,
		InitTimeout: 2 * time.Second,
		Specs:       []Spec{{Name: "fake-" + mode, Command: []string{os.Args[0]}, Languages: map[string]string{".fake": "fake"}}},
	})
	return m, path
}

// pidOf is the process id of the manager's (only) server.
func pidOf(t *testing.T, m *Manager) int {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.clients {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.cmd != nil && c.cmd.Process != nil {
			return c.cmd.Process.Pid
		}
	}
	t.Fatal("no server process")
	return 0
}

func TestBrokenServersNeverStallAnEdit(t *testing.T) {
	for _, tc := range []struct {
		mode, note string
	}{
		{"hang", "is still starting"},
		{"silent", "did not report in time"},
		{"crash", "exited"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			const wait = 400 * time.Millisecond
			m, path := fakeManager(t, tc.mode, wait)
			if tc.mode != "hang" {
				warm(t, m, path)
			}
			for i, content := range []string{"two\n", "three\n"} {
				start := time.Now()
				r := change(t, m, path, content)
				took := time.Since(start)
				// Bounded: Wait/2 + Wait and a little; far below the
				// server's start timeout or forever.
				if took > 10*wait {
					t.Errorf("edit %d waited %v with a %v bound", i, took, wait)
				}
				if r.Checked || !strings.Contains(r.Note, tc.note) {
					t.Errorf("edit %d: report %+v, want not checked: %q", i, r, tc.note)
				}
				if text := r.Text(filepath.Base); !strings.HasPrefix(text, "diagnostics: not checked") {
					t.Errorf("edit %d: text %q", i, text)
				}
				// The edit itself happened.
				if b, _ := os.ReadFile(path); string(b) != content {
					t.Errorf("file holds %q", b)
				}
			}
			if tc.mode == "crash" {
				if r := change(t, m, path, "four\n"); !strings.Contains(r.Note, "crashing on purpose") {
					t.Errorf("the crash's reason is not reported: %q", r.Note)
				}
				return
			}
			pid := pidOf(t, m)
			m.Close()
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("server %d still alive after Close (%v)", pid, err)
			}
		})
	}
}

// A server that never answers initialize is killed at InitTimeout.
func TestHangingServerIsKilledAtInitTimeout(t *testing.T) {
	m, path := fakeManager(t, "hang", 200*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := m.Warm(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "no answer to initialize within 2s") {
		t.Fatalf("warm: %v", err)
	}
	pid := pidOf(t, m)
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server %d still alive after its start timed out", pid)
	}
}

func TestNoServerMeansNoReport(t *testing.T) {
	m := newManager(t, t.TempDir(), Options{Specs: []Spec{{Name: "none", Command: []string{"openseek-no-such-server"}, Languages: map[string]string{".x": "x"}}}})
	path := filepath.Join(t.TempDir(), "a.x")
	r := change(t, m, path, "x")
	if r.Text(filepath.Base) != "" || len(r.Servers) != 0 {
		t.Errorf("report %+v", r)
	}
	if err := m.Warm(context.Background(), path); err == nil {
		t.Error("Warm found a server that is not installed")
	}
}

// A language server installed under /tmp cannot run in the sandbox, whose
// /tmp is private: every report names that as the reason diagnostics are
// off, instead of a server that failed to start for no visible reason.
func TestServerUnderTmpIsNamedAsTheReason(t *testing.T) {
	t.Setenv(fakeEnv, "silent")
	ws := t.TempDir()
	bin, err := os.MkdirTemp("/tmp", "lsp-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	if ws == bin || strings.HasPrefix(ws, bin) {
		t.Fatal("the workspace must not hold the program")
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	program := filepath.Join(bin, "fake-ls")
	if err := os.WriteFile(program, self, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ws, "a.fake")
	writeFile(t, path, "one\n")
	pol := sandbox.DefaultPolicy(ws)
	m := newManager(t, ws, Options{
		Wait: 5 * time.Second, InitTimeout: 2 * time.Second, Sandbox: &pol,
		Specs: []Spec{{Name: "fake", Command: []string{program}, Languages: map[string]string{".fake": "fake"}}},
	})
	r := change(t, m, path, "two\n")
	if r.Checked || !strings.Contains(r.Note, "diagnostics are off") || !strings.Contains(r.Note, program) || !strings.Contains(r.Note, "under /tmp") {
		t.Errorf("report %+v", r)
	}
	// With the network on the command sees the host's /tmp: it runs.
	if pol.Network = true; pol.Hides(program) != "" {
		t.Error("a command with network sees the host's /tmp")
	}
	if pol.Network = false; pol.Hides(filepath.Join(ws, "tool")) != "" {
		t.Error("the workspace is never hidden")
	}
}
