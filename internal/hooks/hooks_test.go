package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// script writes an executable shell script into dir and returns a command
// that runs it.
func script(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return "'" + p + "'"
}

type cmdSpec struct {
	matcher string
	command string
	timeout float64
}

// hooksFile writes a hooks.json attaching the commands to events and
// returns its path.
func hooksFile(t testing.TB, dir string, events map[Event][]cmdSpec) string {
	t.Helper()
	cfg := fileJSON{Hooks: map[string][]groupJSON{}}
	for ev, specs := range events {
		for _, s := range specs {
			cfg.Hooks[string(ev)] = append(cfg.Hooks[string(ev)], groupJSON{
				Matcher: s.matcher,
				Hooks:   []hookJSON{{Type: "command", Command: s.command, Timeout: s.timeout}},
			})
		}
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fmt.Sprintf("hooks-%d.json", len(must(os.ReadDir(dir)))))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func load(t *testing.T, paths ...string) *Runner {
	t.Helper()
	var files []File
	for _, p := range paths {
		files = append(files, File{Path: p, Trusted: true})
	}
	r, errs := Load(files)
	if len(errs) != 0 {
		t.Fatalf("Load: %v", errs)
	}
	return r
}

func TestRunOutcomes(t *testing.T) {
	tests := []struct {
		name string
		ev   Event
		body string
		want Outcome
		// errHas, when set, must appear in the single error reported.
		errHas string
	}{
		{name: "exit 0 passes", ev: PreToolUse, body: "exit 0"},
		{name: "plain stdout of a tool hook is not context", ev: PreToolUse, body: "echo formatted"},
		{name: "exit 2 blocks with stderr", ev: PreToolUse, body: "echo 'vendor/ is read-only' >&2; exit 2",
			want: Outcome{Block: true, Reason: "vendor/ is read-only"}},
		{name: "exit 2 without stderr", ev: PostToolUse, body: "exit 2",
			want: Outcome{Block: true, Reason: "blocked by PostToolUse hook"}},
		{name: "exit 2 refuses prompt", ev: UserPromptSubmit, body: "echo 'no secrets in prompts' >&2; exit 2",
			want: Outcome{Block: true, Reason: "no secrets in prompts"}},
		{name: "exit 2 keeps a stop going", ev: Stop, body: "echo 'tests still fail' >&2; exit 2",
			want: Outcome{Block: true, Reason: "tests still fail"}},
		{name: "exit 2 cannot block session start", ev: SessionStart, body: "echo nope >&2; exit 2", errHas: "exited 2: nope"},
		{name: "other exit is reported", ev: PreToolUse, body: "echo oops >&2; exit 1", errHas: "exited 1: oops"},
		{name: "json decision block", ev: PostToolUse, body: `echo '{"decision":"block","reason":"lint failed"}'`,
			want: Outcome{Block: true, Reason: "lint failed"}},
		{name: "json decision block on stop", ev: Stop, body: `echo '{"decision":"block","reason":"run the tests"}'`,
			want: Outcome{Block: true, Reason: "run the tests"}},
		{name: "json decision ignored on exit 1", ev: PostToolUse, body: `echo '{"decision":"block"}'; exit 1`, errHas: "exited 1"},
		{name: "additionalContext", ev: UserPromptSubmit,
			body: `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"on branch main"}}'`,
			want: Outcome{AdditionalContext: "on branch main"}},
		{name: "plain stdout is context for prompts", ev: UserPromptSubmit, body: "echo 'today is Monday'",
			want: Outcome{AdditionalContext: "today is Monday"}},
		{name: "plain stdout is context at session start", ev: SessionStart, body: "echo 'open issues: 3'",
			want: Outcome{AdditionalContext: "open issues: 3"}},
		{name: "continue false halts", ev: PostToolUse, body: `echo '{"continue":false,"stopReason":"build broke"}'`,
			want: Outcome{Halt: true, HaltReason: "build broke"}},
		{name: "continue false on stop does not block", ev: Stop, body: `echo '{"continue":false}'`,
			want: Outcome{Halt: true}},
		{name: "permission deny", ev: PreToolUse,
			body: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}'`,
			want: Outcome{Block: true, Reason: "no rm", Permission: "deny"}},
		{name: "permission allow", ev: PreToolUse,
			body: `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, want: Outcome{Permission: "allow"}},
		{name: "permission ask", ev: PreToolUse,
			body: `echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`, want: Outcome{Permission: "ask"}},
		{name: "legacy approve", ev: PreToolUse, body: `echo '{"decision":"approve"}'`, want: Outcome{Permission: "allow"}},
		{name: "legacy block on pre tool use", ev: PreToolUse, body: `echo '{"decision":"block","reason":"nope"}'`,
			want: Outcome{Block: true, Reason: "nope", Permission: "deny"}},
		{name: "updated input", ev: PreToolUse,
			body: `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}'`,
			want: Outcome{Permission: "allow", UpdatedInput: json.RawMessage(`{"command":"ls -la"}`)}},
		{name: "system message", ev: SessionEnd, body: `echo '{"systemMessage":"bye"}'`, want: Outcome{Messages: []string{"bye"}}},
		{name: "invalid json", ev: PostToolUse, body: `echo '{"decision":'`, errHas: "printed invalid JSON"},
		{name: "unknown permission", ev: PreToolUse, body: `echo '{"hookSpecificOutput":{"permissionDecision":"maybe"}}'`, errHas: `unknown permissionDecision "maybe"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := script(t, dir, "hook.sh", tt.body)
			r := load(t, hooksFile(t, dir, map[Event][]cmdSpec{tt.ev: {{command: cmd}}}))
			got := r.Run(context.Background(), tt.ev, Input{Cwd: dir, ToolName: "shell"})
			if tt.errHas != "" {
				if len(got.Errors) != 1 || !strings.Contains(got.Errors[0], tt.errHas) {
					t.Fatalf("errors %q, want one with %q", got.Errors, tt.errHas)
				}
				if got.Block {
					t.Fatalf("an error blocked: %+v", got)
				}
				return
			}
			if len(got.Errors) != 0 {
				t.Fatalf("errors: %q", got.Errors)
			}
			if strings.HasPrefix(tt.want.Reason, "blocked by") {
				if !strings.HasPrefix(got.Reason, tt.want.Reason) {
					t.Fatalf("reason %q, want prefix %q", got.Reason, tt.want.Reason)
				}
				got.Reason = tt.want.Reason
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestRunCombinesHooksInOrder(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	a := script(t, dir, "a.sh", "echo a >> '"+log+"'; echo 'first' >&2; exit 2")
	b := script(t, dir, "b.sh", "echo b >> '"+log+"'; echo '{\"hookSpecificOutput\":{\"additionalContext\":\"ctx\"}}'")
	c := script(t, dir, "c.sh", "echo c >> '"+log+"'; echo second >&2; exit 2")
	global := hooksFile(t, dir, map[Event][]cmdSpec{PostToolUse: {{command: a}, {command: b}}})
	ws := hooksFile(t, dir, map[Event][]cmdSpec{PostToolUse: {{command: c}, {command: a}}}) // a again: runs once
	r := load(t, global, ws)
	got := r.Run(context.Background(), PostToolUse, Input{Cwd: dir, ToolName: "edit"})
	if !got.Block || got.Reason != "first\nsecond" || got.AdditionalContext != "ctx" {
		t.Fatalf("got %+v", got)
	}
	if data := must(os.ReadFile(log)); string(data) != "a\nb\nc\n" {
		t.Fatalf("ran %q, want a, b, c once each in order", data)
	}
}

func TestMatcher(t *testing.T) {
	tests := []struct {
		matcher string
		ev      Event
		in      Input
		want    bool
	}{
		{"", PreToolUse, Input{ToolName: "edit"}, true},
		{"*", PostToolUse, Input{ToolName: "anything"}, true},
		{"edit|write", PreToolUse, Input{ToolName: "write"}, true},
		{"edit|write", PreToolUse, Input{ToolName: "multi_edit"}, false}, // anchored: a simple name matches exactly
		{"edit", PreToolUse, Input{ToolName: "Edit"}, false},
		{"mcp__github__.*", PreToolUse, Input{ToolName: "mcp__github__create_issue"}, true},
		{"shell", PreToolUse, Input{ToolName: ""}, false},
		{"auto", PreCompact, Input{Trigger: "auto"}, true},
		{"auto", PreCompact, Input{Trigger: "manual"}, false},
		{"startup|resume", SessionStart, Input{Trigger: "resume"}, true},
		{"anything", UserPromptSubmit, Input{Prompt: "hi"}, true}, // no matcher for prompts
		{"anything", Stop, Input{}, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%s%s", tt.ev, tt.matcher, tt.in.ToolName, tt.in.Trigger), func(t *testing.T) {
			dir := t.TempDir()
			mark := filepath.Join(dir, "ran")
			cmd := script(t, dir, "h.sh", "touch '"+mark+"'")
			r := load(t, hooksFile(t, dir, map[Event][]cmdSpec{tt.ev: {{matcher: tt.matcher, command: cmd}}}))
			tt.in.Cwd = dir
			if got := r.Run(context.Background(), tt.ev, tt.in); len(got.Errors) != 0 {
				t.Fatalf("errors %q", got.Errors)
			}
			_, err := os.Stat(mark)
			if ran := err == nil; ran != tt.want {
				t.Fatalf("ran = %v, want %v", ran, tt.want)
			}
		})
	}
}

func TestStdinAndEnvironment(t *testing.T) {
	tests := []struct {
		ev   Event
		in   Input
		want map[string]any
	}{
		{PreToolUse, Input{ToolName: "shell", ToolInput: json.RawMessage(`{"command":"go test ./..."}`)},
			map[string]any{"tool_name": "shell", "tool_input": map[string]any{"command": "go test ./..."}}},
		{PostToolUse, Input{ToolName: "edit", ToolInput: json.RawMessage(`{"path":"a.go"}`), ToolResponse: json.RawMessage(`"ok"`)},
			map[string]any{"tool_name": "edit", "tool_input": map[string]any{"path": "a.go", "file_path": "a.go"}, "tool_response": "ok"}},
		{UserPromptSubmit, Input{Prompt: "fix the bug"}, map[string]any{"prompt": "fix the bug"}},
		{Stop, Input{StopHookActive: true}, map[string]any{"stop_hook_active": true}},
		{PreCompact, Input{Trigger: "auto"}, map[string]any{"trigger": "auto", "custom_instructions": ""}},
		{PostCompact, Input{Trigger: "manual", Summary: "did x"}, map[string]any{"trigger": "manual", "summary": "did x"}},
		{SessionStart, Input{Trigger: "resume"}, map[string]any{"source": "resume"}},
		{SessionEnd, Input{Trigger: "exit"}, map[string]any{"reason": "exit"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.ev), func(t *testing.T) {
			dir, cwd := t.TempDir(), t.TempDir()
			out := filepath.Join(dir, "stdin.json")
			envOut := filepath.Join(dir, "env")
			cmd := script(t, dir, "h.sh", fmt.Sprintf(`cat > '%s'; printf '%%s\n%%s\n%%s\n' "$CLAUDE_PROJECT_DIR" "$OPENSEEK_PROJECT_DIR" "$(pwd -P)" > '%s'`, out, envOut))
			r := load(t, hooksFile(t, dir, map[Event][]cmdSpec{tt.ev: {{command: cmd}}}))
			tt.in.SessionID, tt.in.TranscriptPath, tt.in.Cwd = "s-1", "/tmp/s-1.jsonl", cwd
			if got := r.Run(context.Background(), tt.ev, tt.in); len(got.Errors) != 0 || got.Block {
				t.Fatalf("outcome %+v", got)
			}
			var sent map[string]any
			if err := json.Unmarshal(must(os.ReadFile(out)), &sent); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"session_id": "s-1", "transcript_path": "/tmp/s-1.jsonl", "cwd": cwd, "hook_event_name": string(tt.ev)}
			for k, v := range tt.want {
				want[k] = v
			}
			if !reflect.DeepEqual(sent, want) {
				t.Fatalf("stdin %v\nwant %v", sent, want)
			}
			real := must(filepath.EvalSymlinks(cwd))
			if env := string(must(os.ReadFile(envOut))); env != cwd+"\n"+cwd+"\n"+real+"\n" {
				t.Fatalf("env/cwd %q", env)
			}
		})
	}
}

func TestTimeoutKillsHookAndChild(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	cmd := script(t, dir, "hang.sh", "sleep 300 &\necho $! > '"+pidFile+"'\nwait")
	r := load(t, hooksFile(t, dir, map[Event][]cmdSpec{PreToolUse: {{command: cmd, timeout: 1}}}))
	start := time.Now()
	got := r.Run(context.Background(), PreToolUse, Input{Cwd: dir, ToolName: "shell"})
	if got.Block || len(got.Errors) != 1 || !strings.Contains(got.Errors[0], "timed out after 1s; killed") {
		t.Fatalf("outcome %+v", got)
	}
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Fatalf("Run took %v; the hang was not cut at its timeout", elapsed)
	}
	pid := must(strconv.Atoi(strings.TrimSpace(string(must(os.ReadFile(pidFile))))))
	waitDead(t, pid)
}

// waitDead waits for pid to be gone (or a zombie nobody has reaped yet).
func waitDead(t *testing.T, pid int) {
	t.Helper()
	for range 100 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("child %d of the timed-out hook is still running", pid)
}

func TestCancelledContext(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	cmd := script(t, dir, "h.sh", "touch '"+mark+"'")
	r := load(t, hooksFile(t, dir, map[Event][]cmdSpec{Stop: {{command: cmd}}}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := r.Run(ctx, Stop, Input{Cwd: dir})
	if len(got.Errors) != 1 || !strings.Contains(got.Errors[0], "not run") || got.Block {
		t.Fatalf("outcome %+v", got)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("hook ran under a cancelled context")
	}
}

func TestNilRunner(t *testing.T) {
	var r *Runner
	if r.Has(PreToolUse) {
		t.Fatal("nil runner has hooks")
	}
	if got := r.Run(context.Background(), PreToolUse, Input{}); !reflect.DeepEqual(got, Outcome{}) {
		t.Fatalf("nil runner outcome %+v", got)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`)
	malformed := write("malformed.json", `{"hooks": {"PreToolUse": [`)
	wrongShape := write("shape.json", `{"hooks": {"PreToolUse": {"matcher": "x"}}}`)
	noHooks := write("nohooks.json", `{"mcpServers": {}}`)
	partial := write("partial.json", `{"hooks": {
		"PreToolUse": [
			{"matcher": "edit(", "hooks": [{"type": "command", "command": "true"}]},
			{"matcher": "shell", "hooks": [
				{"type": "prompt", "prompt": "is this ok?"},
				{"type": "command"},
				{"type": "command", "command": "true", "timeout": -1},
				{"type": "command", "command": "true", "timeout": 5}
			]}
		],
		"Notification": [{"hooks": [{"type": "command", "command": "true"}]}]
	}}`)
	untrusted := write("untrusted.json", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"true"}]}]}}`)

	tests := []struct {
		name     string
		files    []File
		errs     []string // substrings, one per expected error, in order
		has, not []Event
	}{
		{"missing file is fine", []File{{Path: filepath.Join(dir, "absent.json")}, {Path: good, Trusted: true}}, nil, []Event{Stop}, []Event{PreToolUse}},
		{"malformed file named, rest loads", []File{{Path: malformed, Trusted: true}, {Path: good, Trusted: true}},
			[]string{malformed + ": not a hooks file"}, []Event{Stop}, nil},
		{"wrong shape", []File{{Path: wrongShape, Trusted: true}}, []string{wrongShape + ": not a hooks file"}, nil, []Event{PreToolUse}},
		{"no hooks key", []File{{Path: noHooks, Trusted: true}}, []string{noHooks + `: no "hooks" object`}, nil, nil},
		{"bad entries skipped", []File{{Path: partial, Trusted: true}},
			[]string{
				partial + `: hooks.Notification: event not supported`,
				partial + `: hooks.PreToolUse[0].matcher "edit(": error parsing regexp`,
				partial + `: hooks.PreToolUse[1].hooks[0]: type "prompt" not supported`,
				partial + `: hooks.PreToolUse[1].hooks[1]: no command`,
				partial + `: hooks.PreToolUse[1].hooks[2]: timeout -1 must be positive`,
			}, []Event{PreToolUse}, nil},
		{"untrusted skipped with hint", []File{{Path: untrusted, Hint: "run openseek trust"}},
			[]string{untrusted + ": skipped: this workspace's hooks are not trusted (they run commands on your machine); run openseek trust"}, nil, []Event{SessionStart}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, errs := Load(tt.files)
			if r == nil {
				t.Fatal("nil runner")
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("errors %v, want %d", errs, len(tt.errs))
			}
			for i, e := range errs {
				if !strings.HasPrefix(e.Error(), tt.errs[i]) {
					t.Errorf("error %d = %q, want prefix %q", i, e, tt.errs[i])
				}
			}
			for _, ev := range tt.has {
				if !r.Has(ev) {
					t.Errorf("no %s hooks", ev)
				}
			}
			for _, ev := range tt.not {
				if r.Has(ev) {
					t.Errorf("unexpected %s hooks", ev)
				}
			}
		})
	}
	r, _ := Load([]File{{Path: partial, Trusted: true}})
	if hs := r.hooks[PreToolUse]; len(hs) != 1 || hs[0].timeout != 5*time.Second || !hs[0].match.MatchString("shell") {
		t.Fatalf("kept hooks %+v", hs)
	}
	if !slices.Equal(Events(), []Event{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart, SessionEnd, PreCompact, PostCompact}) {
		t.Fatalf("Events() = %v", Events())
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"matcher":"a|b","hooks":[{"type":"command","command":"x","timeout":3}]}]}}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","timeout":1e308}]}]}}`))
	f.Add([]byte(`{"hooks":{"Bogus":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		hooks, errs := parse("f.json", data)
		for _, e := range errs {
			if !strings.HasPrefix(e.Error(), "f.json: ") {
				t.Fatalf("error without file name: %q", e)
			}
		}
		for _, hs := range hooks {
			for _, h := range hs {
				if h.command == "" || h.timeout <= 0 || h.timeout > maxTimeout {
					t.Fatalf("bad hook kept: %+v", h)
				}
			}
		}
	})
}

// A PostCompact hook replaces the summary through its stdout JSON; the
// last hook that gives one wins, and other events ignore the key.
func TestPostCompactReplacesSummary(t *testing.T) {
	dir := t.TempDir()
	first := script(t, dir, "a.sh", `echo '{"hookSpecificOutput":{"summary":"first"}}'`)
	second := script(t, dir, "b.sh", `cat >/dev/null; echo '{"hookSpecificOutput":{"summary":"second"}}'`)
	quiet := script(t, dir, "c.sh", `echo '{"hookSpecificOutput":{"summary":"  "}}'`)
	r := load(t, hooksFile(t, dir, map[Event][]cmdSpec{
		PostCompact: {{command: first}, {command: second}, {command: quiet}},
		PreCompact:  {{command: first}},
	}))
	out := r.Run(context.Background(), PostCompact, Input{Cwd: dir, Trigger: "auto", Summary: "model summary"})
	if len(out.Errors) != 0 || out.Summary != "second" {
		t.Fatalf("PostCompact outcome %+v, want summary %q", out, "second")
	}
	if out := r.Run(context.Background(), PreCompact, Input{Cwd: dir, Trigger: "auto"}); out.Summary != "" {
		t.Fatalf("PreCompact gave a summary: %+v", out)
	}
}
