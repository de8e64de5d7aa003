package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/beneath/beneathtest"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// TestWriteRaceThroughACP: an editor's session writes d/config over and
// over while a command exchanges d with a symlink to .git. Writes are the
// file tools' (the agent never asks the client to write through
// fs/write_text_file), so none lands in .git and no temporary file stays.
// (The rig runs without the OS sandbox: no command runs here; the
// exchange is this test's.)
func TestWriteRaceThroughACP(t *testing.T) {
	ws := t.TempDir()
	for name, body := range map[string]string{".git/config": "[core]\n", ".git/hooks/README": "hooks\n", "d/config": "mine\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".git", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	var calls []llmtest.Call
	for i := range 60 {
		args, _ := json.Marshal(map[string]string{"path": []string{"d/config", "d/hooks/pre-commit"}[i%2], "content": "[core]\n\tfsmonitor = touch pwned\n"})
		calls = append(calls, llmtest.Call{ID: fmt.Sprintf("w%d", i), Name: "write", Args: string(args)})
	}
	srv := llmtest.NewServer(t, llmtest.Calls(calls...), llmtest.Text("written"))
	r := serve(t, srv, ws, t.TempDir(), "never")
	id := r.newSession(t)

	stop := beneathtest.Exchange(filepath.Join(ws, "d"), filepath.Join(ws, "link"))
	r.prompt(t, id, "write the config")
	if stop() == 0 {
		t.Fatal("no exchange happened")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git/config")); string(b) != "[core]\n" {
		t.Errorf(".git/config is now %q", b)
	}
	if ents, _ := os.ReadDir(filepath.Join(ws, ".git/hooks")); len(ents) != 1 {
		t.Errorf(".git/hooks holds %v", ents)
	}
	filepath.WalkDir(ws, func(p string, de os.DirEntry, err error) error {
		if err == nil && strings.Contains(de.Name(), ".openseek-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
	r.cl.mu.Lock()
	defer r.cl.mu.Unlock()
	if len(r.cl.writes) > 0 {
		t.Errorf("the agent wrote through the editor: %v", r.cl.writes)
	}
}
