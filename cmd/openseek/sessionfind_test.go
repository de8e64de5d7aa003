package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/session"
)

// TestSessionsSearchAndFork records a two-turn session with the default
// flags (sandbox on), finds it by a word of its first turn, forks it
// after that turn and continues the fork: the model sees the first turn
// and not the second, the parent is unchanged and the file the second
// turn wrote stays.
func TestSessionsSearchAndFork(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	env := []string{"HOME=" + t.TempDir()}
	srv := llmtest.NewServer(t,
		llmtest.Text("The Zebra bug is in parse.go."),
		llmtest.Calls(llmtest.Call{ID: "w1", Name: "write", Args: `{"path":"second.txt","content":"turn two\n"}`}),
		llmtest.Text("second answer"),
		llmtest.Text("third answer"),
	)
	args := append(modelArgs(srv), "--session", "s1", "run")
	if r := openseek(t, ws, "", env, append(args, "first task: where is the ZEBRA bug?")...); r.code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", r.code, r.stderr)
	}
	if r := openseek(t, ws, "", env, append(args, "second task")...); r.code != 0 {
		t.Fatalf("turn 2: exit %d\n%s", r.code, r.stderr)
	}

	r := openseek(t, ws, "", env, "sessions", "search", "zebra")
	if r.code != 0 {
		t.Fatalf("search: exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "s1\t"+ws+"\t") || !strings.HasSuffix(lines[0], "\tturn 1\t#1 user") ||
		lines[1] != "    first task: where is the »ZEBRA« bug?" || lines[3] != "    The »Zebra« bug is in parse.go." {
		t.Errorf("search output:\n%s", r.stdout)
	}
	r = openseek(t, ws, "", env, "sessions", "search", "--json", "ZEBRA BUG")
	var hits []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || len(hits) != 2 || hits[0]["session"] != "s1" || hits[0]["workspace"] != ws || hits[0]["turn"] != 1.0 || hits[1]["kind"] != "assistant" {
		t.Errorf("search --json: %v\n%s", err, r.stdout)
	}
	if r = openseek(t, ws, "", env, "sessions", "search", "no such words"); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no session mentions") {
		t.Errorf("search without hits: exit %d %q %q", r.code, r.stdout, r.stderr)
	}

	store := session.NewStore(filepath.Join(ws, ".openseek"))
	parent, err := store.Load("s1")
	if err != nil {
		t.Fatal(err)
	}
	endOfFirst := 0
	for _, e := range parent.Events {
		if _, ok := e.Item.(*session.Terminal); ok {
			endOfFirst = e.Sequence
			break
		}
	}
	before, _ := os.ReadFile(store.Path("s1"))
	r = openseek(t, ws, "", env, "sessions", "fork", "s1", "--at", strconv.Itoa(endOfFirst), "--as", "f1")
	if r.code != 0 || r.stdout != "f1\n" {
		t.Fatalf("fork: exit %d %q\n%s", r.code, r.stdout, r.stderr)
	}
	srv.ExpectPrefixBreak() // the fork's history is shorter than the parent's last request
	if r = openseek(t, ws, "", env, append(modelArgs(srv), "--session", "f1", "run", "third task")...); r.code != 0 {
		t.Fatalf("resume the fork: exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	var texts []string
	for _, m := range last.Messages {
		var msg struct{ Role, Content string }
		json.Unmarshal(m, &msg)
		texts = append(texts, msg.Role+": "+msg.Content)
	}
	want := []string{"user: first task: where is the ZEBRA bug?", "assistant: The Zebra bug is in parse.go.", "user: third task"}
	if got := texts[1:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the fork's model request holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	fork, err := store.Load("f1")
	if err != nil {
		t.Fatal(err)
	}
	if p, at, ok := fork.ForkedFrom(); !ok || p != "s1" || at != endOfFirst {
		t.Errorf("the fork's log links %q %d %v", p, at, ok)
	}
	if after, _ := os.ReadFile(store.Path("s1")); string(after) != string(before) {
		t.Error("forking and continuing the fork changed the parent")
	}
	if _, err := os.Stat(filepath.Join(ws, "second.txt")); err != nil {
		t.Errorf("forking touched the workspace: %v", err)
	}

	for _, tc := range []struct{ args, want string }{
		{"sessions fork s1 --at 999 --as f2", "outside its events"},
		{"sessions fork s1 --as f1", "session f1 already exists"},
		{"sessions fork nosuch", "session nosuch does not exist"},
	} {
		if r := openseek(t, ws, "", env, strings.Fields(tc.args)...); r.code != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d %s", tc.args, r.code, r.stderr)
		}
	}
}

func TestSessionsSearchAndForkAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestSessionsSearchAndFork$")
}
