package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// responsesScript is a minimal scripted Responses API server, enough for
// the Codex CLI: each POST /v1/responses is answered with the next
// scripted list of output items as response.output_item.done events and
// a response.completed carrying usage. llmtest serves chat completions
// and Anthropic Messages only; this exists to regenerate testdata.
type responsesScript struct {
	mu     sync.Mutex
	turns  [][]map[string]any
	bodies [][]byte
}

func (s *responsesScript) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	var items []map[string]any
	if n < len(s.turns) {
		items = s.turns[n]
	}
	s.mu.Unlock()
	if r.Method != http.MethodPost || filepath.Base(r.URL.Path) != "responses" || items == nil {
		http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%d", n+1)
	send := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
	}
	send(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	for i, it := range items {
		send(map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	send(map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{
		"input_tokens": 1000 + 100*n, "input_tokens_details": map[string]any{"cached_tokens": 800},
		"output_tokens": 40, "output_tokens_details": map[string]any{"reasoning_tokens": 10}, "total_tokens": 1040 + 100*n,
	}}})
}

// TestGenerateCodexRollout regenerates testdata/codex.jsonl by running the
// real Codex CLI against responsesScript. It runs only with
// OPENSEEK_IMPORT_REGEN=1 and CODEX_BIN set (see testdata/README.md).
func TestGenerateCodexRollout(t *testing.T) {
	bin, home, ws := regenerate(t, "CODEX_BIN")
	call := func(id, name, args string) map[string]any {
		return map[string]any{"type": "function_call", "call_id": id, "name": name, "arguments": args}
	}
	say := func(text string) map[string]any {
		return map[string]any{"type": "message", "role": "assistant", "content": []map[string]any{{"type": "output_text", "text": text}}}
	}
	patch := "*** Begin Patch\n*** Update File: notes.txt\n@@\n-hello\n+hello world\n*** End Patch\n"
	script := &responsesScript{turns: [][]map[string]any{
		{
			{"type": "reasoning", "id": "rs_1", "summary": []map[string]any{{"type": "summary_text", "text": "**Reading first**\n\nLook at notes.txt before changing it."}}, "encrypted_content": "enc-opaque-1"},
			say("Looking at the file."),
			call("call_1", "exec_command", `{"cmd":"cat notes.txt"}`),
		},
		{call("call_2", "exec_command", `{"cmd":"apply_patch <<'EOF'\n`+strings.ReplaceAll(patch, "\n", `\n`)+`EOF"}`)},
		{{"type": "custom_tool_call", "call_id": "call_3", "name": "apply_patch", "input": "*** Begin Patch\n*** Add File: new.txt\n+fresh\n*** End Patch\n"}},
		{call("call_4", "get_goal", `{}`)},
		{say("Done: notes.txt says hello world.")},
	}}
	srv := httptest.NewServer(script)
	defer srv.Close()
	codexModel := "gpt-5.1-codex"
	if m := os.Getenv("CODEX_MODEL"); m != "" {
		codexModel = m
	}
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o755)
	cfg := fmt.Sprintf(`model = "%s"
model_provider = "llmtest"

[model_providers.llmtest]
name = "llmtest"
base_url = "%s/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
`, codexModel, srv.URL)
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o644)
	cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "Tidy notes.txt and add new.txt")
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-test"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("codex: %v\n%s", err, out.String())
	if err != nil || len(script.bodies) != len(script.turns) {
		t.Fatalf("codex exec: %v after %d of %d requests", err, len(script.bodies), len(script.turns))
	}
	keep(t, filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"), "codex.jsonl")
}
