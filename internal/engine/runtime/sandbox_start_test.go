package runtime

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/protocol"
)

// TestSandboxBuiltBeforeDoesNotHoldTheStart: the first start on a machine
// waits for the sandbox's build and marks it; the next one starts and
// asks the model while the build runs, and a build that then fails ends
// the turn before its command runs, forgets the mark, and the start after
// that waits again and refuses.
func TestSandboxBuiltBeforeDoesNotHoldTheStart(t *testing.T) {
	home := t.TempDir()
	mark := filepath.Join(home, ".openseek", "run", "sandbox-ok")
	e1, _, _ := newEngine(t, llmtest.NewServer(t), func(o *testOptions) { o.Home = home })
	e1.Close()
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("a sandbox was built, and no mark says so: %v", err)
	}

	release := make(chan struct{})
	prepareSandbox = func(sandbox.Policy) error {
		<-release
		return errors.New("user namespaces are off now")
	}
	t.Cleanup(func() { prepareSandbox = sandbox.Policy.Prepare })
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "c", Name: "shell", Args: `{"cmd":"touch ran"}`}),
		llmtest.Text("done"))
	e2, _, ws := newEngine(t, srv, func(o *testOptions) { o.Home = home })
	asked := make(chan bool, 1)
	go func() {
		defer close(release)
		for range 2000 {
			if len(srv.Requests()) > 0 {
				asked <- true
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		asked <- false
	}()
	_, err := e2.Prompt(context.Background(), protocol.Text("make a file"), nil)
	var no *ErrNoSandbox
	if !errors.As(err, &no) {
		t.Fatalf("Prompt: %v, want ErrNoSandbox", err)
	}
	if !<-asked {
		t.Error("the model was not asked until the sandbox was built")
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("the command ran although no sandbox could be built")
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the mark survived a failed build")
	}
	// Every later turn ends the same way, before its tools.
	srv.Push(llmtest.Calls(llmtest.Call{ID: "d", Name: "shell", Args: `{"cmd":"touch ran"}`}), llmtest.Text("done"))
	if _, err := e2.Prompt(context.Background(), protocol.Text("again"), nil); !errors.As(err, &no) {
		t.Fatalf("second Prompt: %v, want ErrNoSandbox", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("the second turn's command ran although no sandbox could be built")
	}

	// No mark: the start waits for the build and refuses.
	prepareSandbox = func(sandbox.Policy) error { return errors.New("still off") }
	d := *e2.opts.Deps
	d.Dir = t.TempDir()
	if e3, err := New(context.Background(), &d, e2.opts.SessionOptions); !errors.As(err, &no) {
		if e3 != nil {
			e3.Close()
		}
		t.Fatalf("New without a mark and without a sandbox: %v, want ErrNoSandbox", err)
	}
}

// streamProvider sends one delta, then reports whether then had run by
// the time its stream ended.
type streamProvider struct{ started *bool }

func (p streamProvider) Stream(_ context.Context, _ llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	before := *p.started
	on(llm.Delta{Kind: llm.TextDelta, Text: "hi"})
	if before || !*p.started {
		return nil, errors.New("the build did not start at the first delta")
	}
	return &llm.Response{Content: "hi"}, nil
}

// TestSandboxBuildStartsAtTheFirstDelta: the deferred build starts while
// the model's answer streams, not when the turn reaches its gate.
func TestSandboxBuildStartsAtTheFirstDelta(t *testing.T) {
	started := false
	p := &afterFirstRequest{Provider: streamProvider{&started}, then: func() { started = true }}
	if _, err := p.Stream(context.Background(), llm.Request{}, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
}
