package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

const secretValue = "sk-live-4242"

// secretWorkspace holds secret files (and a template that is not one).
func secretWorkspace(t *testing.T) string {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{
		".env":             "API_KEY=" + secretValue + "\n",
		".env.example":     "API_KEY=\n",
		"config/dev.env":   "DB_PASSWORD=" + secretValue + "\n",
		"certs/server.pem": "-----BEGIN PRIVATE KEY-----\n" + secretValue + "\n",
		"app.go":           "package app // reads API_KEY\n",
	})
	return ws
}

func shellCall(id, cmd string) llmtest.Call {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return llmtest.Call{ID: id, Name: "shell", Args: string(args)}
}

// TestSecretFilesAreNotRead drives `openseek run` (the sandbox on) with
// a model that tries to read a workspace's secrets every way it can: the
// read tool, grep, the shell, a script, a write — in the default mode and
// in plan mode. Nothing of them reaches the model; the template does.
func TestSecretFilesAreNotRead(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"never", "plan"} {
		t.Run(mode, func(t *testing.T) {
			ws := secretWorkspace(t)
			srv := llmtest.NewServer(t, llmtest.Calls(
				llmtest.Call{ID: "read", Name: "read", Args: `{"path":".env"}`},
				llmtest.Call{ID: "example", Name: "read", Args: `{"path":".env.example"}`},
				llmtest.Call{ID: "grep", Name: "grep", Args: `{"pattern":"sk-live"}`},
				llmtest.Call{ID: "grepfile", Name: "grep", Args: `{"pattern":"sk-live","path":".env"}`},
				shellCall("cat", "cat .env config/dev.env certs/server.pem; echo cat-done"),
				shellCall("rg", "grep -r sk-live . ; echo grep-done"),
				llmtest.Call{ID: "script", Name: "script", Args: `{"code":"print(shell(cmd='cat .env', check=False))\nprint(read(path='config/dev.env'))"}`},
				llmtest.Call{ID: "write", Name: "write", Args: `{"path":".env","content":"API_KEY=changed\n"}`},
			), llmtest.Text("done"))
			r := openseek(t, ws, "", nil, append(modelArgs(srv), "--approval", mode, "run", "find the key")...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
			}
			results := map[string]string{}
			for _, tr := range find[protocol.ToolResult](r.events) {
				results[tr.ToolCallID] = tr.Content
				if strings.Contains(tr.Content, secretValue) {
					t.Errorf("%s: the secret reached the model: %q", tr.ToolCallID, tr.Content)
				}
			}
			if c := results["read"]; !strings.Contains(c, "refused") || !strings.Contains(c, "holds secrets") || !strings.Contains(c, "allow_secrets") {
				t.Errorf("read .env: %q", c)
			}
			if c := results["example"]; !strings.Contains(c, "API_KEY=") {
				t.Errorf("read .env.example (a template) failed: %q", c)
			}
			if c := results["grep"]; !strings.Contains(c, "no matches") || !strings.Contains(c, "2 files not searched") {
				t.Errorf("grep does not say it skipped the secret files: %q", c)
			}
			if c := results["grepfile"]; !strings.Contains(c, "1 file not searched") {
				t.Errorf("grep of .env: %q", c)
			}
			if c := results["cat"]; !strings.Contains(c, "cat-done") {
				t.Errorf("cat: %q", c)
			}
			if c := results["script"]; !strings.Contains(c, "holds secrets") {
				t.Errorf("the script's read was not refused: %q", c)
			}
			if c := results["write"]; !strings.Contains(c, "refused") {
				t.Errorf("write .env was not refused: %q", c)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, ".env")); !strings.Contains(string(b), secretValue) {
				t.Errorf(".env was changed: %q", b)
			}
		})
	}
}

// TestAllowedSecretFiles: a pattern in the user's [files] allow_secrets
// lets the model read that file, with the tools and the shell; other
// secrets stay hidden. The same key in the repository's config does not.
func TestAllowedSecretFiles(t *testing.T) {
	t.Parallel()
	ws := secretWorkspace(t)
	home := t.TempDir()
	writeTree(t, home, map[string]string{".openseek/config.toml": "[files]\nallow_secrets = [\"config/dev.env\"]\n"})
	writeTree(t, ws, map[string]string{".openseek/config.toml": "[files]\nallow_secrets = [\".env\"]\n"})
	srv := llmtest.NewServer(t, llmtest.Calls(
		llmtest.Call{ID: "read", Name: "read", Args: `{"path":"config/dev.env"}`},
		llmtest.Call{ID: "env", Name: "read", Args: `{"path":".env"}`},
		shellCall("cat", "cat config/dev.env; echo; cat .env; echo cat-done"),
	), llmtest.Text("done"))
	r := openseek(t, ws, "", []string{"HOME=" + home}, append(modelArgs(srv), "--trust-workspace", "run", "read the dev config")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	results := map[string]string{}
	for _, tr := range find[protocol.ToolResult](r.events) {
		results[tr.ToolCallID] = tr.Content
	}
	if c := results["read"]; !strings.Contains(c, "DB_PASSWORD="+secretValue) {
		t.Errorf("read of an allowed secret file: %q", c)
	}
	if c := results["env"]; !strings.Contains(c, "refused") {
		t.Errorf("the repository's config allowed .env: %q", c)
	}
	if c := results["cat"]; !strings.Contains(c, "DB_PASSWORD="+secretValue) || strings.Contains(c, "API_KEY="+secretValue) {
		t.Errorf("the shell's view: %q", c)
	}
}

// TestSecretsAsOrdinaryUser runs the secret-file tests again as an
// ordinary user.
func TestSecretsAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestSecretFilesAreNotRead|TestAllowedSecretFiles)$")
}
