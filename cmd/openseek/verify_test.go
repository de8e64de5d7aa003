package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// goCheck is the detected check of a Go module.
const goCheck = "go build -o /dev/null ./... && go vet ./..."

// TestBuildCheckLeavesNothingAndIsShown edits a module with one main
// package through `openseek run` (default flags: the sandbox is on), so
// the automatic build check runs: it writes no file into the repository
// (the binary once landed there), the JSONL stream announces it with
// verify_started before its verify_result, and text mode prints
// "checking: go build …" while it runs; serve's stream carries the
// events too.
func TestBuildCheckLeavesNothingAndIsShown(t *testing.T) {
	t.Parallel()
	ws := fleetRepo(t, map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {}\n",
	})
	edit := func(id, body string) llmtest.Reply {
		return llmtest.Reply{Calls: []llmtest.Call{{ID: id, Name: "write", Args: `{"path":"main.go","content":` + quoteJSON(body) + `}`}}}
	}
	// OpenSeek's own state (the session log, the sandbox's private
	// caches) lives in .openseek/; anything else new would be the check's.
	status := func(modified bool) {
		t.Helper()
		want := []string{"?? .openseek/"}
		if modified {
			want = []string{" M main.go", "?? .openseek/"}
		}
		got := strings.Split(strings.TrimRight(gitRun(t, ws, "status", "--porcelain", "--ignored"), "\n"), "\n")
		if !slices.Equal(got, want) {
			t.Errorf("git status --porcelain --ignored = %q, want %q", got, want)
		}
	}

	srv := llmtest.NewServer(t, edit("w1", "package main\n\nfunc main() { println(\"hello\") }\n"), llmtest.Text("done"))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "--format", "jsonl", "say hello")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	var order []string
	for _, e := range r.events {
		switch v := e.(type) {
		case protocol.VerifyStarted:
			order = append(order, "started "+v.Command)
		case protocol.VerifyResult:
			order = append(order, "result "+v.Command)
			if !v.OK {
				t.Errorf("the check failed: %+v", v)
			}
		}
	}
	if want := []string{"started " + goCheck, "result " + goCheck}; !slices.Equal(order, want) {
		t.Errorf("verify events %q, want %q", order, want)
	}
	status(true)

	srv = llmtest.NewServer(t, edit("w2", "package main\n\nfunc main() { println(\"hello again\") }\n"), llmtest.Text("done again"))
	r = openseek(t, ws, "", nil, append(modelArgs(srv), "run", "--format", "text", "say it again")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	start := strings.Index(r.stderr, "checking: "+goCheck+"\n")
	end := strings.Index(r.stderr, "✓ check passed: "+goCheck+" (")
	if start < 0 || end < start {
		t.Errorf("text mode does not show the running check, then its result:\n%s", r.stderr)
	}
	status(true)

	// serve's JSONL stream carries the same events.
	srv = llmtest.NewServer(t, edit("w3", "package main\n\nfunc main() { println(\"served\") }\n"), llmtest.Text("done serving"))
	r = openseek(t, ws, `{"command":"prompt","content":"serve it"}`+"\n", nil, append(modelArgs(srv), "serve")...)
	if r.code != 0 {
		t.Fatalf("serve: exit %d\nstderr: %s", r.code, r.stderr)
	}
	if got := names(r.events); !slices.Contains(got, "verify_started") || slices.Index(got, "verify_started") > slices.Index(got, "verify_result") {
		t.Errorf("serve's events %q lack verify_started before verify_result", got)
	} else if v := find[protocol.VerifyStarted](r.events)[0]; v.Command != goCheck || v.Attempt != 1 {
		t.Errorf("serve's verify_started %+v", v)
	}
	status(true)
}

// TestBuildCheckAsOrdinaryUser runs the build check test again as an
// ordinary user, as most people run it.
func TestBuildCheckAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestBuildCheckLeavesNothingAndIsShown$")
}
