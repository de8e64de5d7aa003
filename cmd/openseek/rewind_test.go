package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/snapshot"
)

func TestRewindCommand(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	// The snapshots live in the home: every run and rewind shares one.
	env := []string{"HOME=" + t.TempDir()}
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("original\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{Name: "write", Args: `{"path":"a.txt","content":"turn one\n"}`}), llmtest.Text("one"),
		llmtest.Calls(llmtest.Call{Name: "write", Args: `{"path":"b.txt","content":"turn two\n"}`}), llmtest.Text("two"),
	)
	for i, task := range []string{"first", "second"} {
		args := append(modelArgs(srv), "--session", "s1", "run", task)
		if r := openseek(t, ws, "", env, args...); r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}

	r := openseek(t, ws, "", env, "rewind", "--list", "--format", "json")
	var turns []struct {
		Number   int    `json:"number"`
		Snapshot string `json:"snapshot"`
		Prompt   string `json:"prompt"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &turns); err != nil || len(turns) != 2 || turns[1].Prompt != "second" || turns[0].Snapshot == "" {
		t.Fatalf("--list: %v %+v\n%s%s", err, turns, r.stdout, r.stderr)
	}

	tests := []struct {
		args           []string
		code           int
		out, errText   string
		aAfter, bAfter string
	}{
		{[]string{"rewind", "s1", "--turn", "3"}, 1, "", "session s1 has no turn 3: its turns are 1 to 2", "turn one\n", "turn two\n"},
		{[]string{"rewind", "--turn", "0"}, 1, "", "--turn counts from 1", "turn one\n", "turn two\n"},
		{[]string{"rewind", "nosuch"}, 1, "", "session nosuch does not exist", "turn one\n", "turn two\n"},
		{[]string{"rewind", "s1"}, 0, "files rewound to before turn 2 of 2 of session s1: 1 changed\n  removed  b.txt\n", "", "turn one\n", "<missing>"},
		{[]string{"rewind", "--session", "s1", "--turn", "1", "--conversation"}, 0, "  modified a.txt\nconversation rewound", "", "original\n", "<missing>"},
	}
	var undo string
	for _, tc := range tests {
		r := openseek(t, ws, "", env, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout, tc.out) || !strings.Contains(r.stderr, tc.errText) {
			t.Errorf("%v: exit %d\nstdout %s\nstderr %s", tc.args, r.code, r.stdout, r.stderr)
		}
		if a, b := read("a.txt"), read("b.txt"); a != tc.aAfter || b != tc.bAfter {
			t.Errorf("%v: a.txt %q b.txt %q, want %q %q", tc.args, a, b, tc.aAfter, tc.bAfter)
		}
		if _, u, ok := strings.Cut(r.stdout, "undo: openseek rewind --snapshot "); ok && undo == "" {
			undo = strings.TrimSpace(u)
		}
	}
	// The first successful rewind saved the files as they were after
	// turn 2; restoring that snapshot undoes both rewinds.
	if r := openseek(t, ws, "", env, "rewind", "--snapshot", undo); r.code != 0 {
		t.Fatalf("undo: %s", r.stderr)
	}
	if a, b := read("a.txt"), read("b.txt"); a != "turn one\n" || b != "turn two\n" {
		t.Errorf("after undo: a.txt %q b.txt %q", a, b)
	}
}

// TestReadOnlyTurnTakesNoSnapshot runs the binary with the default flags
// (sandbox on): a turn that only reads and runs a read-only command
// starts no git and is listed as unchanged; rewinding to before it
// restores the snapshot the next turn took before it wrote.
func TestReadOnlyTurnTakesNoSnapshot(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	home := t.TempDir()
	env := []string{"HOME=" + home}
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("original\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{Name: "read", Args: `{"path":"a.txt"}`}, llmtest.Call{Name: "shell", Args: `{"cmd":"echo hello; cat a.txt"}`}), llmtest.Text("one"),
		llmtest.Calls(llmtest.Call{Name: "write", Args: `{"path":"b.txt","content":"turn two\n"}`}), llmtest.Text("two"),
	)
	side := snapshot.Dir(home, ws)
	for i, task := range []string{"first", "second"} {
		args := append(modelArgs(srv), "--session", "s1", "run", task)
		if r := openseek(t, ws, "", env, args...); r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, r.code, r.stderr)
		}
		if _, err := os.Stat(side); (err == nil) != (i == 1) {
			t.Errorf("after run %d: side repository %s: %v", i+1, side, err)
		}
	}
	r := openseek(t, ws, "", env, "rewind", "--list", "--format", "json")
	var turns []struct {
		Snapshot  string `json:"snapshot"`
		Unchanged bool   `json:"unchanged"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &turns); err != nil || len(turns) != 2 ||
		turns[0].Snapshot != "" || !turns[0].Unchanged || turns[1].Snapshot == "" || turns[1].Unchanged {
		t.Fatalf("--list: %v %+v\n%s%s", err, turns, r.stdout, r.stderr)
	}
	r = openseek(t, ws, "", env, "rewind", "s1", "--turn", "1")
	if r.code != 0 || !strings.Contains(r.stdout, "removed  b.txt") {
		t.Fatalf("rewind to turn 1: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); err == nil {
		t.Error("b.txt is still there after rewinding to before turn 1")
	}
}

// TestSnapshotsAsOrdinaryUser runs the snapshot tests of the CLI again as
// an ordinary user.
func TestSnapshotsAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestReadOnlyTurnTakesNoSnapshot|TestRewindCommand)$")
}
