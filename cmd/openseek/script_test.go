package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// scriptTurn is a model turn calling the script tool with code.
func scriptTurn(id, code string) llmtest.Turn {
	args, _ := json.Marshal(map[string]string{"code": code})
	return llmtest.Calls(llmtest.Call{ID: id, Name: "script", Args: string(args)})
}

// resultOf is the tool_result event of call id.
func resultOf(evs []protocol.Event, id string) protocol.ToolResult {
	for _, res := range find[protocol.ToolResult](evs) {
		if res.ToolCallID == id {
			return res
		}
	}
	return protocol.ToolResult{}
}

// A script run by `openseek run` with the default flags reads two files
// and runs commands in the sandbox: the model gets all of it as the
// script's result, a command cannot write outside the workspace, and the
// session records the inner calls as children of the script's call.
func TestScriptRunsToolsInTheSandbox(t *testing.T) {
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "b.txt"), []byte("beta\n"), 0o644)
	escaped := filepath.Join(outside, "escaped")
	code := "for p in ['a.txt', 'b.txt']:\n    print(read(path=p))\n" +
		"print(shell(cmd='echo ran-$((6*7))'))\n" +
		"shell(cmd='touch " + escaped + "', check=False)\n"
	srv := llmtest.NewServer(t, scriptTurn("s1", code), llmtest.Text("read both"))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "read the files")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	script := resultOf(r.events, "s1")
	for _, want := range []string{"alpha", "beta", "ran-42"} {
		if !strings.Contains(script.Content, want) {
			t.Errorf("the script's result lacks %q: %q", want, script.Content)
		}
	}
	if _, err := os.Stat(escaped); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a command a script ran wrote outside the workspace: %v", err)
	}
	id := find[protocol.SessionStarted](r.events)[0].Session
	s, err := session.NewStore(filepath.Join(ws, ".openseek")).Load(id)
	if err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, e := range s.Events {
		if res, ok := e.Item.(*session.ToolResult); ok && res.Parent == "s1" {
			kids = append(kids, res.ToolCallID+" "+res.ToolName)
		}
	}
	if strings.Join(kids, ", ") != "s1.1 read, s1.2 read, s1.3 shell, s1.4 shell" {
		t.Errorf("children recorded: %v", kids)
	}
}

// In plan mode a script's write is refused like the model's own; the
// script gets the refusal as an error and the file is not written.
func TestScriptInPlanModeWritesNothing(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, scriptTurn("s1", "print('start')\nwrite(path='x.txt', content='no')\nprint('not reached')"), llmtest.Text("planned"))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "--approval", "plan", "run", "plan it")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	script := resultOf(r.events, "s1")
	if !script.IsError || !strings.Contains(script.Content, "start\n") || !strings.Contains(script.Content, "line 2: write failed") || strings.Contains(script.Content, "not reached") {
		t.Errorf("the script's result: %+v", script)
	}
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plan mode: a script wrote x.txt")
	}
}

// A script that does not parse, or loops without end, is an error result
// naming its line, and the turn goes on: the model reads the errors and
// answers.
func TestScriptBadCodeFailsTheCallNotTheTurn(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		scriptTurn("s1", "print('ok')\nfor x in [1, 2]\n    print(x)"),
		scriptTurn("s2", "n = 0\nwhile True:\n    n += 1"),
		llmtest.Text("both failed"))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "try scripts")...)
	if r.code != 0 || !strings.Contains(r.stdout, "both failed") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	for id, want := range map[string]string{"s1": "syntax error at line 3", "s2": "line 3: the script was stopped after 10000000 execution steps"} {
		if res := resultOf(r.events, id); !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("script %s: %+v, want an error with %q", id, res, want)
		}
	}
}

// TestScriptAsOrdinaryUser runs the script tests again as an ordinary
// user, as most people run it.
func TestScriptAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestScriptRunsToolsInTheSandbox|TestScriptInPlanModeWritesNothing|TestScriptBadCodeFailsTheCallNotTheTurn)$")
}
