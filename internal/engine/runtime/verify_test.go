package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

const (
	brokenGo = "package main\n\nfunc main() {\n\tundefinedThing()\n}\n"
	fixedGo  = "package main\n\nfunc main() {}\n"
)

func writeCall(id, path, content string) llmtest.Call {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return llmtest.Call{ID: id, Name: "write", Args: string(args)}
}

// goModule makes ws a Go module, so `go build -o /dev/null ./... && go
// vet ./...` is the detected check.
func goModule(t *testing.T, ws string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/v\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func verifyResults(rec *recorder) []protocol.VerifyResult {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []protocol.VerifyResult
	for _, e := range rec.evs {
		if v, ok := e.(protocol.VerifyResult); ok {
			out = append(out, v)
		}
	}
	return out
}

// userConfig writes ~/.openseek/config.toml under the engine's Home.
func userConfig(t *testing.T, home, body string) {
	t.Helper()
	dir := filepath.Join(home, ".openseek")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyRepairLoopFixesBrokenGo(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(writeCall("w1", "main.go", brokenGo)),
		llmtest.Text("done"),
		llmtest.Calls(writeCall("w2", "main.go", fixedGo)),
		llmtest.Text("fixed it"),
	)
	e, rec, _ := newEngine(t, srv, func(o *testOptions) {
		// The workspace must be a module before the engine starts.
		o.Dir = t.TempDir()
		goModule(t, o.Dir)
	})
	out, err := e.Prompt(context.Background(), protocol.Text("write a main"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != session.Finished || out.Answer != "fixed it" {
		t.Fatalf("outcome %+v, want finished with the repaired answer", out)
	}
	vr := verifyResults(rec)
	if len(vr) != 2 || vr[0].OK || vr[0].ExitCode == 0 || !vr[1].OK || vr[1].Attempt != 2 {
		t.Fatalf("verify results %+v, want a failure then a pass", vr)
	}
	if vr[0].Command != "go build -o /dev/null ./... && go vet ./..." || !strings.Contains(vr[0].Output, "undefined: undefinedThing") {
		t.Errorf("first verify %+v", vr[0])
	}
	// Each run was announced before it ran, with its command and attempt.
	var order []string
	rec.mu.Lock()
	for _, ev := range rec.evs {
		switch v := ev.(type) {
		case protocol.VerifyStarted:
			order = append(order, fmt.Sprintf("started %d %s", v.Attempt, v.Command))
		case protocol.VerifyResult:
			order = append(order, fmt.Sprintf("result %d %s", v.Attempt, v.Command))
		}
	}
	rec.mu.Unlock()
	cmd := "go build -o /dev/null ./... && go vet ./..."
	if want := []string{"started 1 " + cmd, "result 1 " + cmd, "started 2 " + cmd, "result 2 " + cmd}; !slices.Equal(order, want) {
		t.Errorf("verify events %q, want %q", order, want)
	}
	// The passing build of the one main package wrote no binary.
	if _, err := os.Stat(filepath.Join(e.opts.Dir, "v")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the check left its binary in the workspace: %v", err)
	}
	// The model saw the compiler's words in a user message.
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	last := string(reqs[2].Messages[len(reqs[2].Messages)-1])
	if !strings.Contains(last, `"role":"user"`) || !strings.Contains(last, "[verify]") || !strings.Contains(last, "undefined: undefinedThing") || !strings.Contains(last, "main.go:4") {
		t.Errorf("repair message %s", last)
	}
	// Both runs are recorded in the session.
	var notes []string
	for _, ev := range e.Session().Events {
		if n, ok := ev.Item.(*session.Notice); ok && strings.HasPrefix(n.Content, "[verify]") {
			notes = append(notes, n.Content)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "failed (exit 1)") || !strings.Contains(notes[1], "passed") {
		t.Errorf("session notes %q", notes)
	}
}

func TestVerifyGivesUpAfterMaxRepairs(t *testing.T) {
	home := t.TempDir()
	userConfig(t, home, "[verify]\nmax_repairs = 1\n")
	srv := llmtest.NewServer(t,
		llmtest.Calls(writeCall("w1", "main.go", brokenGo)),
		llmtest.Text("done"),
		llmtest.Calls(writeCall("w2", "main.go", brokenGo+"\nvar x int = \"no\"\n")),
		llmtest.Text("done again"),
	)
	e, rec, _ := newEngine(t, srv, func(o *testOptions) {
		o.Home = home
		o.Dir = t.TempDir()
		goModule(t, o.Dir)
	})
	out, err := e.Prompt(context.Background(), protocol.Text("write a main"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != session.Failed || !strings.Contains(out.Answer, "verification failed") || !strings.Contains(out.Answer, "after 1 repair attempt(s)") {
		t.Fatalf("outcome %+v, want failed verification", out)
	}
	if !rec.has("turn_failed") || rec.has("agent_finished") {
		t.Errorf("events %v", rec.names())
	}
	if n := len(verifyResults(rec)); n != 2 {
		t.Errorf("%d verify runs, want 2", n)
	}
	if term, ok := e.Session().LastTerminal(); !ok || term.Kind != session.Failed {
		t.Errorf("terminal %+v", term)
	}
}

func TestVerifyTimeoutKillsTheCheck(t *testing.T) {
	home := t.TempDir()
	userConfig(t, home, "[verify]\ncommand = \"touch began; sleep 60\"\nmax_repairs = 0\ntimeout = \"1h\"\n")
	srv := llmtest.NewServer(t,
		llmtest.Calls(writeCall("w1", "a.txt", "x")),
		llmtest.Text("done"),
	)
	e, rec, _ := newEngine(t, srv, func(o *testOptions) {
		o.Home = home
		o.VerifyTimeout = 300 * time.Millisecond
	})
	start := time.Now()
	out, err := e.Prompt(context.Background(), protocol.Text("go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the turn took %v; the timeout did not stop the check", d)
	}
	vr := verifyResults(rec)
	if len(vr) != 1 || !vr[0].TimedOut || vr[0].OK || vr[0].ExitCode != -1 || !strings.Contains(vr[0].Output, "timed out") {
		t.Fatalf("verify results %+v", vr)
	}
	if out.Kind != session.Failed || !strings.Contains(out.Answer, "timed out") {
		t.Errorf("outcome %+v", out)
	}
}

func TestVerifySkippedWhenOffOrNothingChanged(t *testing.T) {
	for _, tc := range []struct {
		name     string
		noVerify bool
		turns    []llmtest.Turn
	}{
		{"no-verify", true, []llmtest.Turn{llmtest.Calls(writeCall("w1", "main.go", brokenGo)), llmtest.Text("done")}},
		{"read-only turn", false, []llmtest.Turn{llmtest.Calls(llmtest.Call{ID: "r", Name: "read", Args: `{"path":"go.mod"}`}), llmtest.Text("looked")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.turns...)
			e, rec, _ := newEngine(t, srv, func(o *testOptions) {
				o.NoVerify = tc.noVerify
				o.Dir = t.TempDir()
				goModule(t, o.Dir)
			})
			out, err := e.Prompt(context.Background(), protocol.Text("go"), nil)
			if err != nil || out.Kind != session.Finished {
				t.Fatalf("outcome %+v %v", out, err)
			}
			if vr := verifyResults(rec); len(vr) != 0 {
				t.Errorf("verify ran: %+v", vr)
			}
		})
	}
}

func TestVerifyConfigErrors(t *testing.T) {
	for _, body := range []string{
		"[verify]\ntimeout = \"soon\"\n",
		"[verify]\nmax_repairs = -1\n",
		"[verify]\ncomand = \"make\"\n",
	} {
		home := t.TempDir()
		userConfig(t, home, body)
		srv := llmtest.NewServer(t)
		_, err := openRuntime(t, testOptions{Dir: t.TempDir(), Home: home, Model: "m", APIURL: srv.URL(), NoSession: true, Getenv: func(string) string { return "" }})
		if err == nil || !strings.Contains(err.Error(), "verify") {
			t.Errorf("config %q: error %v", body, err)
		}
	}
}

// A repository's own config may not choose the command that runs after
// every turn until the workspace is trusted.
func TestVerifyIgnoresUntrustedWorkspaceCommand(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(writeCall("w1", "a.txt", "x")),
		llmtest.Text("done"),
	)
	ws := t.TempDir()
	e, rec, _ := newEngine(t, srv, func(o *testOptions) {
		o.Dir = ws
		if err := os.MkdirAll(filepath.Join(o.Dir, ".openseek"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(o.Dir, ".openseek", "config.toml"), []byte("[verify]\ncommand = \"touch pwned\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	out, err := e.Prompt(context.Background(), protocol.Text("go"), nil)
	if err != nil || out.Kind != session.Finished {
		t.Fatalf("outcome %+v %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Error("the untrusted workspace's verify command ran")
	}
	var warned bool
	rec.mu.Lock()
	for _, ev := range rec.evs {
		if n, ok := ev.(protocol.BackgroundNotice); ok && strings.Contains(n.Content, "ignored until you trust this workspace: verify.command") {
			warned = true
		}
	}
	rec.mu.Unlock()
	if !warned {
		t.Errorf("no notice about the ignored command: %v", rec.names())
	}
}
