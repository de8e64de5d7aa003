package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/openseek/openseek/internal/e2etest"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/tool"
)

func TestEverythingServer(t *testing.T) {
	main := e2etest.Everything(t)
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		checkEverything(t, Server{Name: "everything", Command: "node", Args: []string{main, "stdio"}, Source: "test"})
	})
	t.Run("streamableHttp", func(t *testing.T) {
		t.Parallel()
		port := freePort(t)
		cmd := exec.Command("node", main, "streamableHttp")
		cmd.Env = append(os.Environ(), "PORT="+port)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		})
		waitListening(t, "127.0.0.1:"+port)
		checkEverything(t, Server{Name: "everything", URL: "http://127.0.0.1:" + port + "/mcp", Source: "test"})
	})
}

// checkEverything lists the server's tools and calls echo, get-sum and
// get-tiny-image through the tools the registry would hold.
func checkEverything(t *testing.T, s Server) {
	m, rec := start(t, []Server{s}, Options{ConnectTimeout: 30 * time.Second, ListTimeout: 30 * time.Second, CallTimeout: 30 * time.Second})
	if st := m.Status(); len(st) != 1 || st[0].State != Connected {
		t.Fatalf("status %+v, events %v", st, rec.all())
	}
	tools := map[string]tool.Tool{}
	for _, tl := range m.Tools() {
		tools[tl.Name] = tl
	}
	for _, name := range []string{"mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-tiny-image"} {
		if _, ok := tools[name]; !ok {
			t.Fatalf("no %s in %v", name, toolNames(m.Tools()))
		}
	}
	tests := []struct {
		tool, args, want string
		image            bool
	}{
		{tool: "echo", args: `{"message":"hello from openseek"}`, want: "Echo: hello from openseek"},
		{tool: "get-sum", args: `{"a":2,"b":40}`, want: "42"},
		{tool: "get-tiny-image", args: `{}`, image: true},
	}
	for _, tc := range tests {
		res, err := tools["mcp__everything__"+tc.tool].Run(context.Background(), nil, json.RawMessage(tc.args))
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %q", tc.tool, err, res.Content.Text())
		}
		if !strings.Contains(res.Content.Text(), tc.want) {
			t.Errorf("%s = %q, want %q in it", tc.tool, res.Content.Text(), tc.want)
		}
		if tc.image && !(len(res.Content) > 1 && res.Content[1].Type == "image") {
			t.Errorf("%s parts = %+v", tc.tool, res.Content)
		}
	}
	// A call with wrong arguments is an error result the model can read.
	res, err := tools["mcp__everything__get-sum"].Run(context.Background(), nil, json.RawMessage(`{"a":"two","b":1}`))
	if err != nil || !res.IsError || res.Content.Text() == "" {
		t.Errorf("bad get-sum = %q, %v", res.Content.Text(), err)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server-everything did not listen on %s within 30s", addr)
}
