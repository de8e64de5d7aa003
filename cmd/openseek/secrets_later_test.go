package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// TestSecretFilesCreatedLater: secret files that appear while a session
// runs — written by a command of the first turn, in a new directory, or
// renamed into place — are hidden from the commands of the next turn,
// which share the first one's sandbox (the default, on); the model reads
// why in the command's result.
func TestSecretFilesCreatedLater(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"app.go": "package app // reads API_KEY\n"})
	write := "printf 'API_KEY=" + secretValue + "\\n' > .env && mkdir -p conf/deep && printf 'K=" + secretValue + "\\n' > conf/deep/prod.env" +
		" && printf 'K=" + secretValue + "\\n' > staged.txt && mv staged.txt .env.local && echo wrote"
	srv := llmtest.NewServer(t,
		llmtest.Calls(shellCall("write", write)),
		llmtest.Text("wrote them"),
		llmtest.Calls(shellCall("cat", "cat .env conf/deep/prod.env .env.local; echo cat-done")),
		llmtest.Text("done"),
	)
	in := `{"command":"prompt","content":"write the config"}` + "\n" + `{"command":"prompt","content":"show it"}` + "\n"
	r := openseek(t, ws, in, nil, append(modelArgs(srv), "serve")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	results := map[string]string{}
	for _, tr := range find[protocol.ToolResult](r.events) {
		results[tr.ToolCallID] = tr.Content
	}
	if c := results["write"]; !strings.Contains(c, "wrote") {
		t.Fatalf("the first turn's command: %q", c)
	}
	for _, f := range []string{".env", "conf/deep/prod.env", ".env.local"} {
		if b, _ := os.ReadFile(filepath.Join(ws, f)); !strings.Contains(string(b), secretValue) {
			t.Errorf("%s holds %q: the command did not write it", f, b)
		}
	}
	c := results["cat"]
	if !strings.Contains(c, "cat-done") {
		t.Fatalf("the second turn's command: %q", c)
	}
	if strings.Contains(c, secretValue) {
		t.Errorf("a secret file created in the first turn was readable in the second: %q", c)
	}
	if !strings.Contains(c, ".env holds secrets") || !strings.Contains(c, "allow_secrets") {
		t.Errorf("the model is not told why .env reads empty: %q", c)
	}
}

// TestSecretFilesCreatedLaterAsOrdinaryUser runs it again as an ordinary
// user.
func TestSecretFilesCreatedLaterAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestSecretFilesCreatedLater$")
}
