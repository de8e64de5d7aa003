package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/internal/tool/fs"
	"github.com/openseek/openseek/protocol"
)

// A compaction takes the reads it summarised out of the context, so the
// ledger forgets them: the next read of the same file is answered in
// full, and only a read after that one is answered briefly.
func TestLedgerForgetsReadsACompactionSummarised(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte(strings.Repeat("alpha beta gamma\n", 50)), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "r1", Name: "read", Args: `{"path":"a.txt"}`}),
		llmtest.Text("read it"),
		llmtest.Reply{Summary: true, Text: "The user had a.txt read; it holds repeated words."},
		llmtest.Calls(llmtest.Call{ID: "r2", Name: "read", Args: `{"path":"a.txt"}`}),
		llmtest.Calls(llmtest.Call{ID: "r3", Name: "read", Args: `{"path":"a.txt"}`}),
		llmtest.Text("done"),
	)
	results := map[string]string{}
	var health []protocol.ContextHealth
	p := testProvider(srv)
	a := New(Config{Provider: p, Model: "test", Tools: tool.NewRegistry(fs.Read()), Env: &tool.Env{Workspace: ws},
		Log: NewMemoryLog("t", "sys"), Backoff: time.Millisecond,
		Emit: func(e protocol.Event) {
			switch e := e.(type) {
			case protocol.ToolResult:
				results[e.ToolCallID] = e.Content
			case protocol.ContextHealth:
				health = append(health, e)
			}
		}})
	ctx := context.Background()
	if out, err := a.Turn(ctx, protocol.Text("read a.txt"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	if err := a.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if out, err := a.Turn(ctx, protocol.Text("read it again"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	if !strings.Contains(results["r2"], "alpha beta gamma") {
		t.Errorf("the first read after the compaction was not answered in full: %q", results["r2"])
	}
	if !strings.HasPrefix(results["r3"], "[unchanged] a.txt is unchanged since your read at step 1 of this turn") {
		t.Errorf("the read after it: %q", results["r3"])
	}
	if h := health[len(health)-1]; h.RereadsAvoided != 1 || h.Compactions != 1 {
		t.Errorf("context_health %+v", h)
	}
}
