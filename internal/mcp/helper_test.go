package mcp

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// helperEnv selects the mode in which the test binary runs as an MCP
// server over stdio instead of running tests (see TestMain).
const helperEnv = "OPENSEEK_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	goleak.VerifyTestMain(m)
}

// helperServer is a stdio Server running the test binary in mode.
func helperServer(t *testing.T, name, mode string, env ...string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A race-enabled helper would otherwise sleep a second on exit.
	e := map[string]string{helperEnv: mode, "GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return Server{Name: name, Command: exe, Args: []string{"-test.run=^$"}, Env: e, Source: "test"}
}

// httpServer serves newTestServer over Streamable HTTP in process; the
// server sees every request's headers through seen.
func httpServer(t *testing.T, seen func(http.Header)) string {
	t.Helper()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return newTestServer("basic") }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen != nil {
			seen(r.Header)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// runHelper is main() of the helper server.
func runHelper(mode string) int {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: API token missing")
		return 1
	case "hanginit":
		_, _ = io.Copy(io.Discard, os.Stdin) // reads, never answers
		return 0
	case "grandchild":
		sleep := exec.Command("sleep", "300")
		if err := sleep.Start(); err != nil {
			return 2
		}
		pids := fmt.Sprintf("%d %d", os.Getpid(), sleep.Process.Pid)
		if err := os.WriteFile(os.Getenv("PIDFILE"), []byte(pids), 0o600); err != nil {
			return 2
		}
	}
	if err := newTestServer(mode).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"what to echo"`
}
type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}
type sum struct {
	Sum float64 `json:"sum"`
}
type bigArgs struct {
	N int `json:"n"`
}
type envArgs struct {
	Name string `json:"name"`
}
type none struct{}

// newTestServer builds the go-sdk server of a helper mode.
func newTestServer(mode string) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "1"}, nil)
	if mode == "notools" {
		return s
	}
	if mode == "many" {
		for i := range 10 {
			sdk.AddTool(s, &sdk.Tool{Name: fmt.Sprintf("t%02d", i)}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
				return nil, nil, nil
			})
		}
		return s
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo text back."}, func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + a.Text}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers."}, func(_ context.Context, _ *sdk.CallToolRequest, a addArgs) (*sdk.CallToolResult, sum, error) {
		return nil, sum{Sum: a.A + a.B}, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "fail"}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("the widget is broken")
	})
	sdk.AddTool(s, &sdk.Tool{Name: "hang"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	sdk.AddTool(s, &sdk.Tool{Name: "big"}, func(_ context.Context, _ *sdk.CallToolRequest, a bigArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x", a.N)}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "image"}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "a dot"},
			&sdk.ImageContent{MIMEType: "image/png", Data: tinyPNG()},
		}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "env"}, func(_ context.Context, _ *sdk.CallToolRequest, a envArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: os.Getenv(a.Name)}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "crash"}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "panic: helper crashed on purpose")
		os.Exit(3)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "weird.name!"}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: strings.Repeat("long", 16)}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return nil, nil, nil
	})
	switch mode {
	case "hanglist":
		s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
			return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
				if method == "tools/list" {
					select {
					case <-ctx.Done():
					case <-time.After(time.Minute):
					}
					return nil, fmt.Errorf("too late")
				}
				return next(ctx, method, req)
			}
		})
	case "dups":
		s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
			return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
				res, err := next(ctx, method, req)
				if lr, ok := res.(*sdk.ListToolsResult); ok && err == nil && len(lr.Tools) > 0 {
					lr.Tools = append(lr.Tools, lr.Tools[0])
				}
				return res, err
			}
		})
	}
	return s
}

// tinyPNG is a 1×1 PNG.
func tinyPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}
