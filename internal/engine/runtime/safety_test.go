package runtime

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/protocol"
)

// TestKeysNeverLeak runs a command that looks for keys in its environment
// and prints a file holding them (keys.txt: a name no secret-file rule
// hides, so the output redaction is what keeps them back): no key may reach the command's
// environment, and none may reach the model, the event stream or the
// session log through its output.
func TestKeysNeverLeak(t *testing.T) {
	keys := map[string]string{
		"DEEPSEEK":         "sk-deepseek-leak-0123456789",
		"KIMI":             "sk-kimi-leak-0123456789",
		"GLM":              "glm-leak-0123456789.abcdef",
		"OPENAI_API_KEY":   "sk-openai-leak-0123456789",
		"INNOCENT_LOOKING": "sk-copied-leak-0123456789", // a key under a plain name
	}
	for k, v := range keys {
		t.Setenv(k, v)
	}
	flagKey := "sk-flag-leak-0123456789"
	t.Setenv("INNOCENT_LOOKING", flagKey) // the --api-key value, copied
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"env; echo \"deepseek=$DEEPSEEK kimi=$KIMI glm=$GLM\"; cat keys.txt"}`}),
		llmtest.Text("done"),
	)
	e, rec, ws := newEngine(t, srv, func(o *testOptions) { o.APIKey = flagKey })
	var file strings.Builder
	for k, v := range keys {
		fmt.Fprintf(&file, "%s=%s\n", k, v)
	}
	fmt.Fprintf(&file, "FLAG=%s\n", flagKey)
	if err := os.WriteFile(filepath.Join(ws, "keys.txt"), []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.Prompt(context.Background(), protocol.Text("look for keys"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	e.Close()

	secret := []string{flagKey}
	for k, v := range keys {
		if k != "INNOCENT_LOOKING" {
			secret = append(secret, v)
		}
	}
	var seen []string
	reqs := srv.Requests()
	for _, r := range reqs {
		for _, m := range r.Messages {
			seen = append(seen, "model request: "+string(m))
		}
	}
	rec.mu.Lock()
	for _, ev := range rec.evs {
		seen = append(seen, fmt.Sprintf("event %s: %+v", ev.EventName(), ev))
	}
	rec.mu.Unlock()
	filepath.WalkDir(filepath.Join(ws, ".openseek"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			seen = append(seen, "file "+p+": "+string(b))
		}
		return nil
	})
	redacted, empty := false, false
	for _, s := range seen {
		for _, k := range secret {
			if strings.Contains(s, k) {
				t.Errorf("key %s leaked into %.200s", k, s)
			}
		}
		redacted = redacted || strings.Contains(s, sandbox.Redacted)
		empty = empty || strings.Contains(s, "deepseek= kimi= glm=")
	}
	if !empty {
		t.Errorf("a key variable reached the command (want deepseek= kimi= glm= in its output)")
	}
	if !redacted {
		t.Errorf("the file's keys were not shown redacted to the model")
	}
}

// TestPlanModeCannotWrite runs, in plan mode, a command the rules rightly
// judge read-only (git status) in a repository whose config runs a hook
// (core.fsmonitor) that writes: the sandbox keeps the workspace read-only,
// so nothing is written whatever the command turns out to run.
func TestPlanModeCannotWrite(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"git status --short; echo listed"}`}),
		llmtest.Text("done"),
	)
	e, _, ws := newEngine(t, srv, func(o *testOptions) { o.Approval = "plan" })
	if e.sandboxPolicy == nil || !e.sandboxPolicy.ReadOnlyWorkspace {
		t.Fatalf("plan mode sandbox %+v, want a read-only workspace", e.sandboxPolicy)
	}
	hook := filepath.Join(ws, "hook.sh")
	pwned := filepath.Join(ws, "pwned")
	for _, c := range [][]string{{"git", "init", "-q", ws}, {"git", "-C", ws, "config", "core.fsmonitor", hook}} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+pwned+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The hook works outside the sandbox: git status runs it.
	if out, err := exec.Command("git", "-C", ws, "status", "--short").CombinedOutput(); err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	if _, err := os.Stat(pwned); err != nil {
		t.Fatalf("the fsmonitor hook did not run outside the sandbox, so this test proves nothing: %v", err)
	}
	os.Remove(pwned)
	out, err := e.Prompt(context.Background(), protocol.Text("look around"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if !strings.Contains(string(last[len(last)-1]), "listed") {
		t.Fatalf("the command did not run: %s", last[len(last)-1])
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("plan mode: a command wrote %s", pwned)
	}
}

// TestKeyFromCommandNeverLeaks: a key that only an api_key_command knows
// (no variable holds it, no file the config names) is withheld and
// redacted like any other.
func TestKeyFromCommandNeverLeaks(t *testing.T) {
	const key = "sk-from-command-leak-0123456789"
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"cat key.txt; env | grep -c from-command || true"}`}),
		llmtest.Text("done"),
	)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".openseek"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(srv.URL(), "/chat/completions")
	conf := fmt.Sprintf("[providers.vault]\nbase_url = %q\napi_key_command = \"echo %s\"\n\n[models.\"vault/m\"]\nwindow = 100000\n", base, key)
	if err := os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	e, rec, ws := newEngine(t, srv, func(o *testOptions) { o.Home, o.Model, o.APIURL = home, "vault/m", "" })
	if err := os.WriteFile(filepath.Join(ws, "key.txt"), []byte(key+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := e.Prompt(context.Background(), protocol.Text("print the key"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	var result string
	rec.mu.Lock()
	for _, ev := range rec.evs {
		if tr, ok := ev.(protocol.ToolResult); ok {
			result = tr.Content
		}
		if s := fmt.Sprintf("%+v", ev); strings.Contains(s, key) {
			t.Errorf("the key leaked into %s", ev.EventName())
		}
	}
	rec.mu.Unlock()
	if !strings.Contains(result, sandbox.Redacted) {
		t.Errorf("tool result %q: want the key redacted", result)
	}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if strings.Contains(string(m), key) {
				t.Errorf("the key reached the model: %s", m)
			}
		}
	}
}
