package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// A GPT-5 model gets apply_patch instead of edit/multi_edit; when it
// calls the tool, the file changes and the result is Codex's summary.
func TestApplyPatchThroughTheEngine(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n-\tprintln(\"old\")\n+\tprintln(\"new\")\n*** Add File: notes/todo.txt\n+ship it\n*** End Patch"
	args, _ := json.Marshal(map[string]string{"input": patch})
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "p1", Name: "apply_patch", Args: string(args)}),
		llmtest.Text("patched"),
	)
	e, _, ws := newEngine(t, srv, func(o *testOptions) { o.Model = "gpt-5" })
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {\n\tprintln(\"old\")\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.Prompt(context.Background(), protocol.Text("patch it"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	b, _ := os.ReadFile(filepath.Join(ws, "main.go"))
	if want := "package main\n\nfunc main() {\n\tprintln(\"new\")\n}\n"; string(b) != want {
		t.Errorf("main.go = %q, want %q", b, want)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes/todo.txt")); string(b) != "ship it\n" {
		t.Errorf("notes/todo.txt = %q", b)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	tools := reqs[0].Tools
	for _, want := range []string{"apply_patch", "grep", "glob", "list", "read", "write", "shell"} {
		if !slices.Contains(tools, want) {
			t.Errorf("tools %v lack %s", tools, want)
		}
	}
	for _, absent := range []string{"edit", "multi_edit"} {
		if slices.Contains(tools, absent) {
			t.Errorf("a GPT-5 model was offered %s: %v", absent, tools)
		}
	}
	if !slices.IsSorted(tools) {
		t.Errorf("tools are not sorted: %v", tools)
	}
	// The tool result the model got back is the summary.
	last := string(reqs[1].Messages[len(reqs[1].Messages)-1])
	if !strings.Contains(last, `Success. Updated the following files:\nM main.go\nA notes/todo.txt`) {
		t.Errorf("last message %s lacks the summary", last)
	}
}

func TestToolSelection(t *testing.T) {
	tests := []struct {
		name, model, flag, config string
		has, lacks                []string
		err                       string
	}{
		{name: "default model keeps edit", model: "test-model", has: []string{"edit", "multi_edit", "grep", "glob", "list", "script"}, lacks: []string{"apply_patch"}},
		{name: "script removed", model: "test-model", flag: "-script", has: []string{"shell", "read"}, lacks: []string{"script"}},
		{name: "script removed by config", model: "gpt-5", config: "[tools]\nremove = [\"script\"]\n", has: []string{"apply_patch"}, lacks: []string{"script"}},
		{name: "codex model", model: "gpt-5.1-codex", has: []string{"apply_patch"}, lacks: []string{"edit", "multi_edit"}},
		{name: "flag adds and removes", model: "test-model", flag: "+apply_patch,-multi_edit", has: []string{"apply_patch", "edit"}, lacks: []string{"multi_edit"}},
		{name: "flag gives edit back to gpt-5", model: "openai/gpt-5-mini", flag: "+edit", has: []string{"apply_patch", "edit"}, lacks: []string{"multi_edit"}},
		{name: "exact set", model: "test-model", flag: "read,grep,finish", has: []string{"read", "grep", "finish"}, lacks: []string{"shell", "edit", "write"}},
		{name: "config table", model: "test-model", config: "[tools]\nadd = [\"apply_patch\"]\nremove = [\"edit\"]\n", has: []string{"apply_patch"}, lacks: []string{"edit"}},
		{name: "flag over config", model: "test-model", config: "[tools]\nremove = [\"grep\"]\n", flag: "+grep", has: []string{"grep"}},
		{name: "unknown flag name", model: "test-model", flag: "+apply_pach", err: `--tools: unknown tool "apply_pach"; known tools: apply_patch, edit, finish, glob, goal, grep, job_output, job_stop, list, multi_edit, plan, read, remove, script, shell, write`},
		{name: "unknown config name", model: "test-model", config: "[tools]\nremove = [\"bash\"]\n", err: `config [tools] remove: unknown tool "bash"`},
		{name: "mixed spec", model: "test-model", flag: "read,-edit", err: "mixes +/- changes with bare names"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			ws, home := t.TempDir(), t.TempDir()
			if tc.config != "" {
				os.MkdirAll(filepath.Join(ws, ".openseek"), 0o755)
				if err := os.WriteFile(filepath.Join(ws, ".openseek", "config.toml"), []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			e, err := openRuntime(t, testOptions{Dir: ws, Home: home, Model: tc.model, APIURL: srv.URL(), NoSession: true, Tools: tc.flag,
				Getenv: func(string) string { return "" }})
			if tc.err != "" {
				if err == nil {
					e.Close()
					t.Fatalf("New succeeded, want error %q", tc.err)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %q, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			var names []string
			for _, s := range e.tools.Specs() {
				names = append(names, s.Name)
			}
			for _, n := range tc.has {
				if !slices.Contains(names, n) {
					t.Errorf("tools %v lack %s", names, n)
				}
			}
			for _, n := range tc.lacks {
				if slices.Contains(names, n) {
					t.Errorf("tools %v include %s", names, n)
				}
			}
		})
	}
}
