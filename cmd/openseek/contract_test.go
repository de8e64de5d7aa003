package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/wireschema"
	"github.com/openseek/openseek/protocol"
)

// schemaFile compiles one of the published schemas with the validator
// used as the oracle. It is generated in memory: the ordinary-user run
// has no source tree, and internal/wireschema's tests hold the files in
// docs/schema to these bytes.
func schemaFile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	s, err := wireschema.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkStream validates every stdout line of a JSONL run against the
// event schema.
func checkStream(t *testing.T, s *jsonschema.Schema, stdout string) {
	t.Helper()
	n := 0
	for line := range strings.Lines(stdout) {
		n++
		if err := wireschema.Validate(s, []byte(strings.TrimSuffix(line, "\n"))); err != nil {
			t.Errorf("event line does not validate against events.v1.json: %s\n%v", line, err)
		}
	}
	if n == 0 {
		t.Error("the run printed no events")
	}
}

// checkResult parses and validates run --format json's one line.
func checkResult(t *testing.T, s *jsonschema.Schema, r result) protocol.RunResult {
	t.Helper()
	var res protocol.RunResult
	if strings.Count(r.stdout, "\n") != 1 || json.Unmarshal([]byte(r.stdout), &res) != nil {
		t.Fatalf("stdout is not one JSON result: %q\n%s", r.stdout, r.stderr)
	}
	if err := wireschema.Validate(s, []byte(strings.TrimSpace(r.stdout))); err != nil {
		t.Errorf("the result does not validate against run-result.v1.json: %s\n%v", r.stdout, err)
	}
	if res.ExitCode != r.code {
		t.Errorf("result says exit_code %d, the process exited %d", res.ExitCode, r.code)
	}
	return res
}

// TestRunExitCodes runs the real binary with the default flags (sandbox
// on) to each documented exit status, once streaming events (every line
// validates against the published event schema) and once with --format
// json (the result validates against the run-result schema and names the
// same status).
func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	events, results := schemaFile(t, "events.v1.json"), schemaFile(t, "run-result.v1.json")
	write := llmtest.Calls(llmtest.Call{ID: "w1", Name: "write", Args: `{"path":"out.txt","content":"x\n"}`})
	for _, tc := range []struct {
		name   string
		home   map[string]string // files under HOME
		args   []string
		script func() []llmtest.Turn
		code   int
		status string
	}{
		{name: "done", code: exitDone, status: "finished",
			script: func() []llmtest.Turn { return []llmtest.Turn{write, llmtest.Text("Wrote out.txt.")} }},
		{name: "the check rejected the answer", code: exitFailed, status: "failed",
			home:   map[string]string{".openseek/config.toml": "[verify]\ncommand = \"false\"\nmax_repairs = 0\n"},
			script: func() []llmtest.Turn { return []llmtest.Turn{write, llmtest.Text("Wrote out.txt.")} }},
		{name: "the provider refused the key", code: exitModel, status: "failed",
			script: func() []llmtest.Turn {
				return []llmtest.Turn{llmtest.Fail{Status: 401, Body: `{"error":{"message":"Authentication Fails"}}`}}
			}},
		{name: "a hook refused the prompt", code: exitRefused, status: "aborted",
			home: map[string]string{
				"refuse.sh":            "#!/bin/sh\necho 'not on Fridays' >&2\nexit 2\n",
				".openseek/hooks.json": `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"sh \"$HOME/refuse.sh\""}]}]}}`,
			},
			script: func() []llmtest.Turn { return nil }},
		{name: "the step limit", code: exitLimit, status: "max_steps_exhausted", args: []string{"--max-steps", "1"},
			script: func() []llmtest.Turn { return []llmtest.Turn{write} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			for name, content := range tc.home {
				p := filepath.Join(home, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			env := []string{"HOME=" + home}
			for _, format := range []string{"jsonl", "json"} {
				srv := llmtest.NewServer(t, tc.script()...)
				args := append(append(modelArgs(srv), tc.args...), "run", "--format", format, "write out.txt")
				r := openseek(t, t.TempDir(), "", env, args...)
				if r.code != tc.code {
					t.Fatalf("--format %s: exit %d, want %d\n%s\n%s", format, r.code, tc.code, r.stdout, r.stderr)
				}
				if format == "jsonl" {
					checkStream(t, events, r.stdout)
					continue
				}
				res := checkResult(t, results, r)
				if res.Status != tc.status || res.Session == nil || (tc.code == exitDone) != (res.Answer != nil) || (tc.code == exitDone) == (res.Reason != nil) {
					t.Errorf("result %s", r.stdout)
				}
			}
		})
	}

	t.Run("usage error", func(t *testing.T) {
		for _, format := range []string{"jsonl", "json"} {
			r := openseek(t, t.TempDir(), "", nil, "run", "--format", format, "--api-url", "http://127.0.0.1:1", "--model", "m")
			if r.code != exitUsage || r.stdout != "" || !strings.HasPrefix(r.stderr, "error: a task is required") {
				t.Errorf("--format %s: exit %d, stdout %q, stderr %q", format, r.code, r.stdout, r.stderr)
			}
		}
	})

	t.Run("interrupted", func(t *testing.T) {
		for _, format := range []string{"jsonl", "json"} {
			srv := llmtest.NewServer(t, llmtest.Stall{})
			cmd := exec.Command(os.Args[0], append(modelArgs(srv), "run", "--format", format, "wait")...)
			cmd.Dir = t.TempDir()
			cmd.Env = []string{"OPENSEEK_TEST_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The model has the request: the turn is under way.
			for deadline := time.Now().Add(time.Minute); len(srv.Requests()) == 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the model got no request\n%s", errb.String())
				}
			}
			cmd.Process.Signal(syscall.SIGINT)
			err := cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != exitInterrupted {
				t.Fatalf("--format %s: exit %d, want %d\n%s", format, code, exitInterrupted, errb.String())
			}
			if format == "jsonl" {
				checkStream(t, events, out.String())
				continue
			}
			if res := checkResult(t, results, result{code: code, stdout: out.String(), stderr: errb.String()}); res.Status != "interrupted" {
				t.Errorf("result %s", out.String())
			}
		}
	})
}

// TestServeStreamValidates drives serve through a turn with a tool call:
// every line it prints validates against the published event schema.
func TestServeStreamValidates(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "look", Calls: []llmtest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"echo hi"}`}}},
		llmtest.Text("It printed hi. All tests pass."),
	)
	r := openseek(t, t.TempDir(), `{"command":"prompt","content":"say hi"}`+"\n", nil, append(modelArgs(srv), "serve")...)
	if r.code != 0 {
		t.Fatalf("serve: exit %d\n%s", r.code, r.stderr)
	}
	checkStream(t, schemaFile(t, "events.v1.json"), r.stdout)
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	seen := map[string]bool{}
	for sc.Scan() {
		if ev, ok := protocol.ParseEvent(sc.Bytes()); ok {
			seen[ev.EventName()] = true
		}
	}
	for _, want := range []string{"session_started", "tool_started", "tool_result", "assistant_message", "unverified_claim", "turn_summary"} {
		if !seen[want] {
			t.Errorf("the stream had no %s event to check", want)
		}
	}
}

func TestRunExitCodesAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestRunExitCodes|TestServeStreamValidates)$")
}
