package importer

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// TestGenerateClaudeTranscript regenerates testdata/claude.jsonl by running
// the real Claude Code CLI against the scripted Anthropic server. It runs
// only with OPENSEEK_IMPORT_REGEN=1 and CLAUDE_BIN set (see
// testdata/README.md).
func TestGenerateClaudeTranscript(t *testing.T) {
	bin, home, ws := regenerate(t, "CLAUDE_BIN")
	rec := &llmtest.RecordingTB{TB: t}
	srv := llmtest.NewAnthropicServer(rec,
		llmtest.Reply{Reasoning: "List the files first.", Text: "Looking around.", Calls: []llmtest.Call{{Name: "Bash", Args: `{"command":"ls","description":"List files"}`}}},
		llmtest.Calls(llmtest.Call{Name: "Read", Args: `{"file_path":"` + ws + `/notes.txt"}`}),
		llmtest.Calls(llmtest.Call{Name: "Edit", Args: `{"file_path":"` + ws + `/notes.txt","old_string":"hello","new_string":"hello world"}`}),
		llmtest.Calls(llmtest.Call{Name: "Write", Args: `{"file_path":"` + ws + `/new.txt","content":"fresh\n"}`}),
		llmtest.Calls(llmtest.Call{Name: "TaskList", Args: `{}`}),
		llmtest.Text("Done: notes.txt now says hello world and new.txt exists."),
	)
	srv.RequireSignatures(false)
	cmd := exec.Command(bin, "-p", "--dangerously-skip-permissions", "--model", "claude-sonnet-4-5", "Tidy notes.txt and add new.txt")
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + srv.URL(), "ANTHROPIC_API_KEY=sk-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("claude: %v\n%s", err, out.String())
	// Claude Code also probes the base URL (HEAD /), which the server
	// reports; the conversation's requests must all have passed.
	t.Logf("server complaints: %q", rec.Complaints())
	if err != nil || srv.Remaining() != 0 {
		t.Fatalf("claude -p: %v with %d scripted turns left", err, srv.Remaining())
	}
	keep(t, filepath.Join(home, ".claude", "projects", "*", "*.jsonl"), "claude.jsonl")
}

// regenerate skips unless testdata is to be regenerated with the CLI that
// binEnv names, and makes a HOME with a workspace holding notes.txt.
func regenerate(t *testing.T, binEnv string) (bin, home, ws string) {
	bin = os.Getenv(binEnv)
	if os.Getenv("OPENSEEK_IMPORT_REGEN") != "1" || bin == "" {
		t.Skipf("regenerates testdata: set OPENSEEK_IMPORT_REGEN=1 and %s (see testdata/README.md)", binEnv)
	}
	home = t.TempDir()
	ws = filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644)
	return bin, home, ws
}

// keep copies the one transcript matching pattern to testdata/name.
func keep(t *testing.T, pattern, name string) {
	files, _ := filepath.Glob(pattern)
	if len(files) != 1 {
		t.Fatalf("want one transcript, found %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
