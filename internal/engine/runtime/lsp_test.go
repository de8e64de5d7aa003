package runtime

import (
	"context"
	"github.com/openseek/openseek/internal/e2etest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// The engine gives the file tools its language servers: a write that
// breaks Go comes back with gopls's diagnostic at file:line.
func TestWriteReportsGoplsDiagnostics(t *testing.T) {
	home, _ := os.UserHomeDir()
	t.Setenv("PATH", filepath.Join(home, "go", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	e2etest.Need(t, "go install golang.org/x/tools/gopls@v0.23.0", "gopls")
	srv := llmtest.NewServer(t,
		llmtest.Calls(writeCall("w1", "main.go", brokenGo)),
		llmtest.Text("done"),
	)
	e, rec, _ := newEngine(t, srv, func(o *testOptions) {
		o.Dir = t.TempDir()
		goModule(t, o.Dir)
		o.NoVerify = true
		o.Getenv = func(k string) string {
			if k == "OPENSEEK_LSP_WAIT_MS" {
				return "60000" // a cold gopls on a busy machine; the report comes as soon as it is ready
			}
			return ""
		}
	})
	if _, err := e.Prompt(context.Background(), protocol.Text("write a main"), nil); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, ev := range rec.evs {
		if r, ok := ev.(protocol.ToolResult); ok && r.ToolName == "write" {
			if !strings.Contains(r.Content, "main.go:4:") || !strings.Contains(r.Content, "undefined: undefinedThing") {
				t.Fatalf("write result %q", r.Content)
			}
			return
		}
	}
	t.Fatal("no write result")
}
