package fleet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// A task over its cost budget is stopped with a terminal state saying so;
// its events can be followed from another client until it ends.
func TestCostBudgetStopsTheTask(t *testing.T) {
	big := &protocol.Usage{PromptTokens: 5000, PromptCacheMissTokens: 5000, CompletionTokens: 10, TotalTokens: 5010}
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "look", Calls: []llmtest.Call{{Name: "list", Args: `{}`}}, Usage: big},
		llmtest.Stall{After: 0})
	srv.MultiConversation()
	cfg := Config{Dir: t.TempDir(), AckWait: 5 * time.Second}
	c := connect(t, cfg)
	ctx := context.Background()
	// A priced model served by the scripted server: $10 per million
	// prompt tokens, so the first step costs $0.05.
	eo := engineOpts(t, srv)
	eo.APIURL = ""
	conf := "[providers.local]\nbase_url = \"" + strings.TrimSuffix(srv.URL(), "/chat/completions") + "\"\nno_key = true\n\n" +
		"[models.\"local/m\"]\nwindow = 128000\nprice = { input_hit = 10, input_miss = 10, output = 10 }\n"
	if err := os.MkdirAll(filepath.Join(eo.Home, ".openseek"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(eo.Home, ".openseek", "config.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := c.Add(ctx, Spec{Prompt: "spend", Dir: newRepo(t), MaxCost: 0.01, Model: "local/m"})
	if err != nil {
		t.Fatal(err)
	}
	// Follow the task's events from another connection while it runs.
	follower := connect(t, cfg)
	type followed struct {
		lines []string
		end   State
		err   error
	}
	done := make(chan followed, 1)
	go func() {
		var f followed
		f.err = follower.Events(ctx, task.ID, true, func(e Event) error {
			if e.End != "" {
				f.end = e.End
			} else {
				f.lines = append(f.lines, string(e.Line))
			}
			return nil
		})
		done <- f
	}()
	stop, _ := startWorkers(t, cfg, 1, WorkerOptions{Engine: eo, WorkRoot: t.TempDir()})
	got := waitAll(t, c, []string{task.ID}, time.Minute)[0]
	stop()
	if got.State != Failed || !strings.Contains(got.Error, "cost budget $0.01 was reached") || got.CostUSD < 0.01 {
		t.Errorf("state %s error %q cost %g", got.State, got.Error, got.CostUSD)
	}
	f := <-done
	if f.err != nil || f.end != Failed || len(f.lines) == 0 || !strings.Contains(strings.Join(f.lines, "\n"), `"event":"usage"`) {
		t.Errorf("followed: err %v end %q, %d lines", f.err, f.end, len(f.lines))
	}
}
