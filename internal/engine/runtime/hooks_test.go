package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// writeHooks installs a user-level hooks.json whose hooks are real shell
// scripts.
func writeHooks(t *testing.T, home string, events map[string]string) {
	t.Helper()
	dir := filepath.Join(home, ".openseek")
	os.MkdirAll(dir, 0o755)
	var parts []string
	for ev, body := range events {
		script := filepath.Join(dir, ev+".sh")
		os.WriteFile(script, []byte("#!/bin/sh\n"+body+"\n"), 0o755)
		parts = append(parts, fmt.Sprintf(`%q:[{"hooks":[{"type":"command","command":%q,"timeout":5}]}]`, ev, script))
	}
	os.WriteFile(filepath.Join(dir, "hooks.json"), []byte(`{"hooks":{`+strings.Join(parts, ",")+`}}`), 0o644)
}

func TestStopHookKeepsTheTurnGoingAndPromptHookRefuses(t *testing.T) {
	home := t.TempDir()
	marker := filepath.Join(home, "stopped-once")
	writeHooks(t, home, map[string]string{
		// The first Stop is turned into "keep going"; the second passes.
		"Stop": fmt.Sprintf("if [ -e %s ]; then exit 0; fi; touch %s; echo 'run the tests first' >&2; exit 2", marker, marker),
		// Prompts mentioning secrets are refused.
		"UserPromptSubmit": "if grep -q secret; then echo 'no secrets please' >&2; exit 2; fi; exit 0",
		"SessionStart":     "echo 'The CI runs make check.'",
	})
	srv := llmtest.NewServer(t, llmtest.Text("done early"), llmtest.Text("tests pass, done"))
	e, rec, _ := newEngine(t, srv, func(o *testOptions) { o.Home = home })
	out, err := e.Prompt(context.Background(), protocol.Text("work"), nil)
	if err != nil || !out.OK() || out.Answer != "tests pass, done" {
		t.Fatalf("%+v %v", out, err)
	}
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Prompt)
	if !strings.Contains(last, "run the tests first") || !strings.Contains(string(reqs[0].Prompt), "The CI runs make check.") {
		t.Errorf("hook feedback missing from the requests")
	}
	out, err = e.Prompt(context.Background(), protocol.Text("print the secret"), nil)
	if err != nil || out.Kind != session.Aborted || !strings.Contains(out.Answer, "no secrets please") {
		t.Errorf("refused prompt: %+v %v", out, err)
	}
	if len(srv.Requests()) != 2 {
		t.Errorf("a refused prompt reached the model")
	}
	_ = rec
}

// A PreToolUse hook answering with updatedInput (Claude Code's shape)
// rewrites the call before it runs.
func TestPreToolUseUpdatedInputRewritesTheCall(t *testing.T) {
	home := t.TempDir()
	writeHooks(t, home, map[string]string{
		"PreToolUse": `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"cmd":"echo rewritten"}}}'`,
	})
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "s", Name: "shell", Args: `{"cmd":"echo original"}`}), llmtest.Text("ok"))
	e, _, _ := newEngine(t, srv, func(o *testOptions) { o.Home = home })
	if out, err := e.Prompt(context.Background(), protocol.Text("go"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	var got string
	for _, ev := range e.Session().Events {
		if r, ok := ev.Item.(*session.ToolResult); ok {
			got = r.Content.Text()
		}
	}
	if !strings.Contains(got, "rewritten") || strings.Contains(got, "original") {
		t.Errorf("result %q", got)
	}
}

// A path a hook supplies is the file tools' like any other: a write a
// PreToolUse hook redirects outside the workspace — by .. or through a
// symlink — is refused, and nothing is written there.
func TestHookSuppliedPathsStayInTheWorkspace(t *testing.T) {
	outside := t.TempDir()
	for _, tc := range []struct{ name, path string }{
		{"dotdot", "../" + filepath.Base(outside) + "/planted"},
		{"absolute", filepath.Join(outside, "planted")},
		{"symlink", "link/planted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			upd := fmt.Sprintf(`{"path":%q,"content":"x"}`, tc.path)
			writeHooks(t, home, map[string]string{
				"PreToolUse": `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":` + upd + `}}'`,
			})
			srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "w", Name: "write", Args: `{"path":"ok.txt","content":"x"}`}), llmtest.Text("ok"))
			e, _, ws := newEngine(t, srv, func(o *testOptions) { o.Home = home })
			if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
				t.Fatal(err)
			}
			if out, err := e.Prompt(context.Background(), protocol.Text("go"), nil); err != nil || !out.OK() {
				t.Fatalf("%+v %v", out, err)
			}
			var res *session.ToolResult
			for _, ev := range e.Session().Events {
				if r, ok := ev.Item.(*session.ToolResult); ok {
					res = r
				}
			}
			if res == nil || !res.IsError {
				t.Errorf("the redirected write was not refused: %+v", res)
			}
			if _, err := os.Stat(filepath.Join(outside, "planted")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a file was written outside the workspace: %v", err)
			}
		})
	}
}
