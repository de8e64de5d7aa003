package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

// transcript copies one of the importer's real transcripts (made by the
// Codex and Claude Code CLIs, see internal/importer/testdata/README.md)
// to a file the test owns. The path is found from this source file: the
// ordinary-user run works in a temporary directory.
func transcript(t *testing.T, name string) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "..", "internal", "importer", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// importOK runs openseek import and returns the session id it printed.
func importOK(t *testing.T, ws string, env []string, args ...string) string {
	t.Helper()
	r := openseek(t, ws, "", env, append([]string{"import"}, args...)...)
	if r.code != 0 {
		t.Fatalf("import %v: exit %d\n%s", args, r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	if !regexp.MustCompile(`^` + args[0] + `-\d{8}-\d{6}-\d{3}$`).MatchString(id) {
		t.Fatalf("import printed %q, want a session id", r.stdout)
	}
	return id
}

func showText(t *testing.T, ws, id string, want ...string) {
	t.Helper()
	r := openseek(t, ws, "", nil, "sessions", "show", id, "--format", "text")
	if r.code != 0 {
		t.Fatalf("sessions show: %d %s", r.code, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("the transcript lacks %q:\n%s", w, r.stdout)
		}
	}
}

// continueOnce runs openseek args, which must answer with answer after
// one model request, and returns that request.
func continueOnce(t *testing.T, ws string, env, args []string, answer string, requests func() []llmtest.Request) llmtest.Request {
	t.Helper()
	r := openseek(t, ws, "", env, args...)
	if r.code != 0 || !strings.Contains(r.stdout, answer) {
		t.Fatalf("run --session: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	return reqs[0]
}

// role and tool-call names of chat-completions messages as sent.
type sentMessage struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct{ Name, Arguments string }
	} `json:"tool_calls"`
}

func TestImportCodexAndContinue(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	id := importOK(t, ws, nil, "codex", transcript(t, "codex.jsonl"))
	showText(t, ws, id,
		"▶ user: Tidy notes.txt and add new.txt",
		"(thinking) **Reading first**",
		"◆ Looking at the file.",
		`→ shell {"cmd":"cat notes.txt"}`,
		`→ apply_patch {"input":"*** Begin Patch\n*** Update File: notes.txt\n@@\n-hello\n+hello world\n*** End Patch\n"}`,
		"← apply_patch: Wall time",
		"→ get_goal {}",
		`← get_goal: {"goal":null`,
		"■ finished: Done: notes.txt says hello world.",
		"tokens: 6000 in (67% cache hits), 200 out",
	)
	for _, hidden := range []string{"environment_context", "skills_instructions"} {
		if r := openseek(t, ws, "", nil, "sessions", "show", id, "--format", "text"); strings.Contains(r.stdout, hidden) {
			t.Errorf("Codex's own context %q came across as a message", hidden)
		}
	}

	srv := llmtest.NewServer(t, llmtest.Text("Continuing from Codex."))
	// The imported steps came from a model that returns no
	// reasoning_content (DeepSeek's rule the server enforces by default).
	srv.RequireReasoning(false)
	req := continueOnce(t, ws, nil, append(modelArgs(srv), "run", "--session", id, "continue"), "Continuing from Codex.", srv.Requests)
	var got []string
	for _, raw := range req.Messages {
		var m sentMessage
		json.Unmarshal(raw, &m)
		s := m.Role
		for _, c := range m.ToolCalls {
			s += " " + c.Function.Name + "#" + c.ID
		}
		if m.ToolCallID != "" {
			s += " #" + m.ToolCallID
		}
		got = append(got, s)
	}
	want := []string{"system", "user", "assistant shell#call_1", "tool #call_1", "assistant apply_patch#call_2", "tool #call_2",
		"assistant apply_patch#call_3", "tool #call_3", "assistant get_goal#call_4", "tool #call_4", "assistant", "user"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("the continued request carries\n%s\nwant\n%s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	body := string(req.Body)
	for _, w := range []string{"Tidy notes.txt and add new.txt", "Looking at the file.", "Process exited with code 0", "Done: notes.txt says hello world.", "continue"} {
		if !strings.Contains(body, w) {
			t.Errorf("the continued request lacks %q", w)
		}
	}
}

func TestImportClaudeAndContinue(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	id := importOK(t, ws, nil, "claude", transcript(t, "claude.jsonl"))
	showText(t, ws, id,
		"▶ user: Tidy notes.txt and add new.txt",
		"(thinking) List the files first.",
		"◆ Looking around.",
		`→ shell {"cmd":"ls","description":"List files"}`,
		"← shell: notes.txt",
		`→ read {"path":"notes.txt"}`,
		`→ edit {"new_string":"hello world","old_string":"hello","path":"notes.txt"}`,
		`→ write {"content":"fresh\n","path":"new.txt"}`,
		"→ TaskList {}",
		"← TaskList: No tasks found",
		"■ finished: Done: notes.txt now says hello world and new.txt exists.",
		"tokens: 175985 in (83% cache hits), 112 out",
	)

	// Claude Code's transcript continued with Claude: the Anthropic
	// server checks alternating roles and that every tool_use is answered.
	srv := llmtest.NewAnthropicServer(t, llmtest.Text("Continuing from Claude Code."))
	env := []string{"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + srv.URL()}
	req := continueOnce(t, ws, env, []string{"--model", "anthropic/claude-sonnet-4-5", "run", "--session", id, "continue"}, "Continuing from Claude Code.", srv.Requests)
	var got []string
	for _, raw := range req.Messages {
		var m struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				Name      string `json:"name"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		}
		json.Unmarshal(raw, &m)
		s := m.Role
		for _, c := range m.Content {
			s += " " + c.Type + c.Name
		}
		got = append(got, s)
	}
	want := []string{"user text", "assistant thinking text tool_useshell", "user tool_result", "assistant tool_useread", "user tool_result",
		"assistant tool_useedit", "user tool_result", "assistant tool_usewrite", "user tool_result", "assistant tool_useTaskList", "user tool_result",
		"assistant text", "user text"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("the continued request carries\n%s\nwant\n%s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
}

func TestImportErrors(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	dir := t.TempDir()
	good, err := os.ReadFile(transcript(t, "claude.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	// A damaged line in the middle is an error naming it; nothing is
	// imported.
	bad := write("bad.jsonl", strings.Join(lines[:4], "")+"{\"type\":\"user\",\"message\n"+strings.Join(lines[4:], ""))
	r := openseek(t, ws, "", nil, "import", "claude", bad)
	if r.code != 1 || !strings.Contains(r.stderr, "bad.jsonl line 5: not a JSON object") || r.stdout != "" {
		t.Errorf("malformed line: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := openseek(t, ws, "", nil, "sessions", "list"); strings.TrimSpace(r.stdout) != "" {
		t.Errorf("a failed import left a session: %q", r.stdout)
	}
	// The wrong source for the file: its first line is not a rollout line.
	r = openseek(t, ws, "", nil, "import", "codex", transcript(t, "claude.jsonl"))
	if r.code != 1 || !strings.Contains(r.stderr, "claude.jsonl line 1: not a Codex rollout line") {
		t.Errorf("wrong source: %d %q", r.code, r.stderr)
	}
	// A last line cut off mid-write is skipped with a warning.
	last := lines[17] // line 18, the final answer
	torn := write("torn.jsonl", strings.Join(lines[:17], "")+last[:len(last)/2])
	r = openseek(t, ws, "", nil, "import", "claude", torn)
	if r.code != 0 || !strings.Contains(r.stderr, "warning: "+torn+" line 18 is cut off (no newline at the end) and was skipped") {
		t.Fatalf("torn last line: %d %q %q", r.code, r.stdout, r.stderr)
	}
	showText(t, ws, strings.TrimSpace(r.stdout), "← TaskList: No tasks found")
	if r := openseek(t, ws, "", nil, "sessions", "show", strings.TrimSpace(r.stdout), "--format", "text"); strings.Contains(r.stdout, "◆ Done") {
		t.Errorf("the torn answer came across:\n%s", r.stdout)
	}
	// --session names the new session; an existing one is never added to.
	if r := openseek(t, ws, "", nil, "--session", "mine", "import", "claude", transcript(t, "claude.jsonl")); r.code != 0 || r.stdout != "mine\n" {
		t.Errorf("import --session mine: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := openseek(t, ws, "", nil, "--session", "mine", "import", "claude", transcript(t, "claude.jsonl")); r.code != 1 || !strings.Contains(r.stderr, "session mine already exists") {
		t.Errorf("import into an existing session: %d %q", r.code, r.stderr)
	}
	// Command-line mistakes.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "name the transcript's source: openseek import codex|claude [FILE | --latest]"},
		{[]string{"import", "gemini", "x"}, "name the transcript's source"},
		{[]string{"import", "codex"}, "give the transcript FILE, or --latest"},
		{[]string{"import", "codex", "f", "--latest"}, "give a FILE or --latest, not both"},
		{[]string{"import", "codex", filepath.Join(dir, "missing.jsonl")}, "no such file or directory"},
		{[]string{"import", "codex", "--latest"}, "no Codex CLI transcript found under"},
	} {
		if r := openseek(t, ws, "", nil, tc.args...); r.code != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: %d %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestImportLatest(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	home := t.TempDir()
	place := func(rel, content string, age time.Duration) {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
		at := time.Now().Add(-age)
		os.Chtimes(p, at, at)
	}
	codex, _ := os.ReadFile(transcript(t, "codex.jsonl"))
	claude, _ := os.ReadFile(transcript(t, "claude.jsonl"))
	// The older files would fail to import: picking one fails the test.
	place(".codex/sessions/2026/01/02/rollout-2026-01-02T10-00-00-new.jsonl", string(codex), time.Hour)
	place(".codex/sessions/2026/01/03/rollout-2026-01-03T10-00-00-old.jsonl", "not json\n", 2*time.Hour)
	place(".claude/projects/-src-a/11111111-old.jsonl", "not json\n", 3*time.Hour)
	place(".claude/projects/-src-b/22222222-new.jsonl", string(claude), time.Minute)
	env := []string{"HOME=" + home}
	id := importOK(t, ws, env, "codex", "--latest")
	showText(t, ws, id, "◆ Done: notes.txt says hello world.")
	id = importOK(t, ws, env, "claude", "--latest")
	showText(t, ws, id, "◆ Done: notes.txt now says hello world and new.txt exists.")
}

func TestImportAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestImportCodexAndContinue|TestImportClaudeAndContinue|TestImportErrors|TestImportLatest)$")
}
