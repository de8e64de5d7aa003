package importer

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
)

func TestCodexToolMapping(t *testing.T) {
	const cwd = "/src/proj"
	for _, tc := range []struct {
		name, args string
		want       mapped
	}{
		{"exec_command", `{"cmd":"go test ./...","workdir":"/src/proj/sub"}`, mapped{"shell", `{"cmd":"go test ./...","cwd":"sub"}`}},
		{"exec_command", `{"cmd":"ls","workdir":"/src/proj"}`, mapped{"shell", `{"cmd":"ls"}`}},
		{"exec_command", `{"cmd":"ls","workdir":"/elsewhere"}`, mapped{"shell", `{"cmd":"ls","cwd":"/elsewhere"}`}},
		{"shell", `{"command":["bash","-lc","echo hi && ls"]}`, mapped{"shell", `{"cmd":"echo hi \u0026\u0026 ls"}`}},
		{"shell", `{"command":["rg","-n","two words"]}`, mapped{"shell", `{"cmd":"rg -n 'two words'"}`}},
		{"shell", `{"command":["apply_patch","*** Begin Patch\n*** End Patch\n"]}`, mapped{"apply_patch", `{"input":"*** Begin Patch\n*** End Patch\n"}`}},
		{"shell_command", `{"command":"make"}`, mapped{"shell", `{"cmd":"make"}`}},
		{"exec_command", `{"cmd":"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF\n"}`, mapped{"apply_patch", `{"input":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"}`}},
		{"apply_patch", `{"input":"*** Begin Patch\n*** End Patch\n"}`, mapped{"apply_patch", `{"input":"*** Begin Patch\n*** End Patch\n"}`}},
		{"update_plan", `{"plan":[]}`, mapped{"update_plan", `{"plan":[]}`}},
		{"exec_command", `not json`, mapped{"exec_command", `not json`}},
		{"view_image", ``, mapped{"view_image", `{}`}},
	} {
		if got := codexTool(tc.name, tc.args, cwd); got != tc.want {
			t.Errorf("%s %s:\n got %+v\nwant %+v", tc.name, tc.args, got, tc.want)
		}
	}
}

func TestClaudeToolMapping(t *testing.T) {
	const cwd = "/src/proj"
	for _, tc := range []struct {
		name, input string
		want        mapped
	}{
		{"Bash", `{"command":"npm test","description":"Run tests","timeout":60000}`, mapped{"shell", `{"cmd":"npm test","timeout_ms":60000,"description":"Run tests"}`}},
		{"Read", `{"file_path":"/src/proj/a/b.go","offset":10,"limit":20}`, mapped{"read", `{"path":"a/b.go","start_line":10,"max_lines":20}`}},
		{"Read", `{"file_path":"/etc/hosts"}`, mapped{"read", `{"path":"/etc/hosts"}`}},
		{"Edit", `{"file_path":"/src/proj/x","old_string":"a","new_string":"b","replace_all":true}`, mapped{"edit", `{"path":"x","old_string":"a","new_string":"b","replace_all":true}`}},
		{"Write", `{"file_path":"/src/proj/../proj/y","content":"z"}`, mapped{"write", `{"path":"y","content":"z"}`}},
		{"Grep", `{"pattern":"x"}`, mapped{"Grep", `{"pattern":"x"}`}},
		{"Read", `{}`, mapped{"Read", `{}`}},
	} {
		if got := claudeTool(tc.name, json.RawMessage(tc.input), cwd); got != tc.want {
			t.Errorf("%s %s:\n got %+v\nwant %+v", tc.name, tc.input, got, tc.want)
		}
	}
}

// kinds is a compact picture of items: kind, then tool names or text.
func kinds(items []session.Item) string {
	var out []string
	for _, it := range items {
		switch v := it.(type) {
		case *session.User:
			out = append(out, "user:"+v.Content.Text())
		case *session.Assistant:
			s := "assistant"
			if v.Reasoning != nil {
				s += "(" + *v.Reasoning + ")"
			}
			if v.Content != "" {
				s += ":" + v.Content
			}
			for _, c := range v.ToolCalls {
				s += " →" + c.Name
			}
			out = append(out, s)
		case *session.ToolResult:
			out = append(out, "←"+v.ToolName)
		case *session.Terminal:
			out = append(out, "■"+string(v.Kind))
		}
	}
	return strings.Join(out, " | ")
}

func TestClaudeShapesTheHistory(t *testing.T) {
	lines := []string{
		`{"type":"summary","summary":"earlier","leafUuid":"x"}`,
		`{"type":"user","sessionId":"s1","cwd":"/w","message":{"role":"user","content":"first"}}`,
		`{"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: local commands"}}`,
		`{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>"}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"and more"}]}}`,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"}],"usage":{"input_tokens":10,"output_tokens":5}}}`,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":10,"output_tokens":5}}}`,
		`{"type":"assistant","isSidechain":true,"message":{"id":"m9","role":"assistant","content":[{"type":"text","text":"subagent"}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"orphan"},{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a.go"},{"type":"image"}],"is_error":true}]}}`,
		`{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"one"}],"usage":{"input_tokens":1,"cache_read_input_tokens":20,"output_tokens":2}}}`,
		`{"type":"assistant","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"two"},{"type":"tool_use","id":"t2","name":"Glob","input":{"pattern":"*"}}]}}`,
		`{"type":"user","message":{"role":"user","content":"next"}}`,
		`{"type":"assistant","message":{"id":"m4","role":"assistant","content":[{"type":"text","text":"bye"}]}}`,
	}
	tr, err := Import(Claude, strings.NewReader(strings.Join(lines, "\n")+"\n"), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := "user:first\n\nand more | assistant(hm) →shell | ←shell | assistant:one\n\ntwo →Glob | user:next | assistant:bye | ■finished"
	if got := kinds(tr.Items); got != want {
		t.Errorf("items\n got %s\nwant %s", got, want)
	}
	if tr.SourceID != "s1" || tr.Cwd != "/w" {
		t.Errorf("source %q cwd %q", tr.SourceID, tr.Cwd)
	}
	a := tr.Items[1].(*session.Assistant)
	if a.ReasoningSignature != "sig" || a.Usage == nil || a.Usage.PromptTokens != 10 || a.Usage.CompletionTokens != 5 || a.Model != "" {
		t.Errorf("first step: %+v %+v", a, a.Usage)
	}
	if r := tr.Items[2].(*session.ToolResult); !r.IsError || r.Content.Text() != "a.go\n[image]" {
		t.Errorf("result %+v", r)
	}
	if u := tr.Items[3].(*session.Assistant).Usage; u == nil || u.PromptTokens != 21 || u.PromptCacheHitTokens != 20 {
		t.Errorf("merged step usage %+v", u)
	}
	if len(tr.Warnings) != 2 || !strings.Contains(tr.Warnings[0], `unknown call "t9"`) || !strings.Contains(tr.Warnings[1], "1 tool call(s) have no recorded result") {
		t.Errorf("warnings %q", tr.Warnings)
	}
	// The unanswered Glob call reads as failed, so the history is valid.
	s := &session.Session{SystemPrompt: "sys"}
	for i, it := range tr.Items {
		s.Events = append(s.Events, session.Event{Sequence: i + 1, Item: it})
	}
	msgs := s.Messages()
	for i, m := range msgs {
		if m.Role == chat.Tool && i > 0 && msgs[i-1].Role == chat.User {
			t.Errorf("a tool message follows a user message at %d", i)
		}
	}
	if m := msgs[5]; m.Role != chat.Tool || m.ToolCallID != "t2" {
		t.Errorf("the dangling call has no synthetic answer: %+v", m)
	}
}

func TestCodexRealRollout(t *testing.T) {
	f, err := os.Open("testdata/codex.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Import(Codex, f, "codex.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := "user:Tidy notes.txt and add new.txt | assistant(**Reading first**\n\nLook at notes.txt before changing it.):Looking at the file. →shell | ←shell | assistant →apply_patch | ←apply_patch | assistant →apply_patch | ←apply_patch | assistant →get_goal | ←get_goal | assistant:Done: notes.txt says hello world. | ■finished"
	if got := kinds(tr.Items); got != want {
		t.Errorf("items\n got %s\nwant %s", got, want)
	}
	if len(tr.Warnings) != 0 || tr.SourceID == "" || !strings.HasSuffix(tr.Cwd, "/ws") {
		t.Errorf("warnings %q source %q cwd %q", tr.Warnings, tr.SourceID, tr.Cwd)
	}
	u := tr.Items[1].(*session.Assistant)
	if u.Usage == nil || u.Usage.PromptTokens != 1000 || u.Usage.PromptCacheHitTokens != 800 || u.Model != "codex/gpt-5.1-codex" {
		t.Errorf("first step usage %+v model %q", u.Usage, u.Model)
	}
}

func TestImportRejects(t *testing.T) {
	for _, tc := range []struct {
		source, in, want string
	}{
		{Codex, "{\"type\":\"session_meta\",\"payload\":{}}\n[1]\n", "x.jsonl line 2: not a JSON object"},
		{Codex, "{\"timestamp\":\"t\"}\n", "x.jsonl line 1: not a Codex rollout line"},
		{Claude, "{\"type\":\"user\"}\n", "x.jsonl line 1: user entry without a message"},
		{Claude, "{\"type\":\"user\",\"message\":{\"content\":7}}\n", "x.jsonl line 1: user message content is neither text nor a list of blocks"},
		{Claude, "{\"type\":\"last-prompt\"}\n", "x.jsonl: no user message found: is this a Claude Code transcript?"},
		{Codex, "", "x.jsonl: no user message found: is this a Codex CLI transcript?"},
		{"gemini", "", `unknown transcript source "gemini"`},
	} {
		_, err := Import(tc.source, strings.NewReader(tc.in), "x.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: %v, want %q", tc.source, tc.in, err, tc.want)
		}
	}
}

func FuzzImport(f *testing.F) {
	for _, name := range []string{"testdata/codex.jsonl", "testdata/claude.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, src := range []string{Codex, Claude} {
			tr, err := Import(src, strings.NewReader(string(data)), "f")
			if err != nil {
				continue
			}
			// Whatever came in, every result answers a call made before it.
			calls := map[string]bool{}
			for _, it := range tr.Items {
				switch v := it.(type) {
				case *session.Assistant:
					for _, c := range v.ToolCalls {
						calls[c.ID] = true
					}
				case *session.ToolResult:
					if !calls[v.ToolCallID] {
						t.Fatalf("%s: result for unknown call %q", src, v.ToolCallID)
					}
				}
			}
		}
	})
}

// Written by hand after codex-rs's rollout recorder: the layout before
// the {type, payload} wrapper (a metadata line, bare ResponseItems, state
// records), and a compaction in the current layout.
func TestCodexLegacyLayoutAndCompaction(t *testing.T) {
	legacy := strings.Join([]string{
		`{"id":"0196-legacy","timestamp":"2025-05-01T10:00:00Z","instructions":null}`,
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>cwd</environment_context>"}]}`,
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]}`,
		`{"record_type":"state"}`,
		`{"type":"local_shell_call","call_id":"c1","status":"completed","action":{"type":"exec","command":["ls","-la"],"working_directory":null}}`,
		`{"type":"function_call_output","call_id":"c1","output":{"content":"a.go","success":false}}`,
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"one file"}]}`,
	}, "\n") + "\n"
	tr, err := Import(Codex, strings.NewReader(legacy), "old.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kinds(tr.Items), "user:list files | assistant →shell | ←shell | assistant:one file | ■finished"; got != want {
		t.Errorf("legacy items\n got %s\nwant %s", got, want)
	}
	if c := tr.Items[1].(*session.Assistant).ToolCalls[0]; c.Arguments != `{"cmd":"ls -la"}` {
		t.Errorf("local_shell_call became %s", c.Arguments)
	}
	if r := tr.Items[2].(*session.ToolResult); !r.IsError || r.Content.Text() != "a.go" {
		t.Errorf("failed output %+v", r)
	}
	if tr.SourceID != "0196-legacy" {
		t.Errorf("source id %q", tr.SourceID)
	}

	compacted := strings.Join([]string{
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"first"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}`,
		`{"type":"compacted","payload":{"message":"The user asked; it was done."}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"second"}]}}`,
	}, "\n") + "\n"
	tr, err = Import(Codex, strings.NewReader(compacted), "c.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := &session.Session{SystemPrompt: "sys"}
	for i, it := range tr.Items {
		s.Events = append(s.Events, session.Event{Sequence: i + 1, Item: it})
	}
	var got []string
	for _, m := range s.Messages() {
		got = append(got, string(m.Role)+":"+m.Text())
	}
	if strings.Join(got, " | ") != "system:sys | user:[conversation summary]\nsource_events=1..3\nThe user asked; it was done. | user:second" {
		t.Errorf("compacted projection: %q", got)
	}
}

// Claude Code keeps a rewound conversation in the same file: the branch
// that ends with the last message is the one imported.
func TestClaudeFollowsTheLastBranch(t *testing.T) {
	entry := func(uuid, parent, typ, text string) string {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"` + typ + `","uuid":"` + uuid + `","parentUuid":` + p + `,"message":{"id":"m` + uuid + `","role":"` + typ + `","content":[{"type":"text","text":"` + text + `"}]}}`
	}
	in := strings.Join([]string{
		entry("u1", "", "user", "first"),
		`{"type":"attachment","uuid":"x1","parentUuid":"u1","attachment":{}}`,
		entry("a1", "x1", "assistant", "answer A"),
		entry("u2", "a1", "user", "branch one"),
		entry("a2", "u2", "assistant", "one"),
		entry("u3", "a1", "user", "branch two"),
		entry("a3", "u3", "assistant", "two"),
	}, "\n") + "\n"
	tr, err := Import(Claude, strings.NewReader(in), "b.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kinds(tr.Items), "user:first | assistant:answer A | ■finished | user:branch two | assistant:two | ■finished"; got != want {
		t.Errorf("items\n got %s\nwant %s", got, want)
	}
}
