package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// TestVanishedSessionFileEndsTheTurn: the session file is deleted while
// the model answers the first request (the proxy in front of the scripted
// model deletes it before passing the answer on). The run must end at once
// with one session_error that says what happened and what to do, exit
// non-zero, and spend little CPU (it once spun for a minute re-emitting
// session_error).
func TestVanishedSessionFileEndsTheTurn(t *testing.T) {
	t.Parallel()
	// The file goes while the model answers the first request, or the
	// second one (after a shell step was recorded).
	for _, at := range []int{1, 2} {
		t.Run(fmt.Sprintf("request %d", at), func(t *testing.T) { vanishAt(t, at) })
	}
}

func vanishAt(t *testing.T, at int) {
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"echo one"}`}),
		llmtest.Calls(llmtest.Call{ID: "b", Name: "shell", Args: `{"cmd":"echo two"}`}),
		llmtest.Text("done"),
	)
	target, err := url.Parse(strings.TrimSuffix(srv.URL(), "/chat/completions"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	var mu sync.Mutex
	n := 0
	var removed []string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		if n == at {
			files, _ := filepath.Glob(filepath.Join(ws, ".openseek", "sessions", "*", "openseek_session-*.jsonl"))
			for _, f := range files {
				if os.Remove(f) == nil {
					removed = append(removed, f)
				}
			}
		}
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "--api-url", front.URL+"/chat/completions", "--model", "test-model", "run", "work")
	cmd.Dir = ws
	cmd.Env = []string{"OPENSEEK_TEST_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if len(removed) != 1 {
		t.Fatalf("the test removed %v, want the one session file", removed)
	}
	if ctx.Err() != nil {
		t.Fatalf("the run did not end within 2 minutes after its session file vanished; stderr %s", tail(errb.String(), 5))
	}
	if err == nil {
		t.Error("the run exited 0 though its session file vanished")
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	// A turn this short needs well under a second of CPU; the spin used 58 s.
	t.Logf("CPU %s", cpu)
	if cpu > 10*time.Second {
		t.Errorf("the run used %s of CPU", cpu)
	}
	evs := parseEvents(t, out.Bytes())
	errs := find[protocol.SessionError](evs)
	if len(errs) != 1 {
		t.Fatalf("%d session_error events, want exactly one: %v\nstdout:\n%s\nstderr:\n%s", len(errs), names(evs), out.String(), errb.String())
	}
	for _, want := range []string{removed[0], "was deleted while the session was running", "start a new session"} {
		if !strings.Contains(errs[0].Error, want) {
			t.Errorf("session_error %q does not say %q", errs[0].Error, want)
		}
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestVanishedSessionAsOrdinaryUser runs it again as an ordinary user.
func TestVanishedSessionAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestVanishedSessionFileEndsTheTurn$")
}
