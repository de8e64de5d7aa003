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

// TestRunRetriesTheSameOnEveryProvider: the binary, with its default flags
// (sandbox on), meets a 429 with Retry-After, a 500 page and a stream cut
// mid-answer the same way through the chat-completions and the Anthropic
// adapters (one shared client; the scripted server speaks no Responses
// API, whose adapter the same table covers in internal/llm): each failure is retried with a
// stream_retry event, the refused answer's key never shows, and the tool
// the model called runs once.
func TestRunRetriesTheSameOnEveryProvider(t *testing.T) {
	t.Parallel()
	const key = "sk-test-key-never-shown"
	script := func() []llmtest.Turn {
		return []llmtest.Turn{
			llmtest.Fail{Status: 429, RetryAfter: "0.001", Body: `{"error":{"type":"rate_limit_error","message":"slow down ` + key + `"}}`},
			llmtest.Reply{Calls: []llmtest.Call{{ID: "toolu_a", Name: "shell", Args: `{"cmd":"echo x >> count.txt"}`}}},
			llmtest.Fail{Status: 500, Body: "<html><title>oops</title></html>"},
			llmtest.Cut{Reply: llmtest.Text("partial answer that will be cut off"), After: 2},
			llmtest.Text("done"),
		}
	}
	for _, p := range []struct {
		name  string
		start func(t *testing.T) (env, args []string)
	}{
		{"chat completions", func(t *testing.T) ([]string, []string) {
			srv := llmtest.NewServer(t, script()...)
			srv.RequireReasoning(false)
			return nil, []string{"--api-url", srv.URL(), "--api-key", key, "--model", "test-model"}
		}},
		{"anthropic", func(t *testing.T) ([]string, []string) {
			srv := llmtest.NewAnthropicServer(t, script()...)
			return []string{"ANTHROPIC_API_KEY=" + key, "ANTHROPIC_BASE_URL=" + srv.URL()}, []string{"--model", "anthropic/claude-sonnet-4-5"}
		}},
	} {
		t.Run(p.name, func(t *testing.T) {
			ws := t.TempDir()
			env, args := p.start(t)
			r := openseek(t, ws, "", env, append(args, "run", "count")...)
			if r.code != 0 {
				t.Fatalf("exit %d %s\n%s", r.code, r.stderr, r.stdout)
			}
			retries := find[protocol.StreamRetry](r.events)
			if len(retries) != 3 || !strings.Contains(retries[0].Reason, "rate limited: slow down [redacted]") {
				t.Errorf("stream_retry events %+v, want 3, the first naming the rate limit without the key", retries)
			}
			if strings.Contains(r.stdout+r.stderr, key) {
				t.Errorf("the key appears in the output")
			}
			if f := find[protocol.AgentFinished](r.events); len(f) != 1 || f[0].Answer != "done" {
				t.Errorf("finished %+v", f)
			}
			if data, _ := os.ReadFile(filepath.Join(ws, "count.txt")); string(data) != "x\n" {
				t.Errorf("the tool ran %d times, want once", strings.Count(string(data), "x"))
			}
		})
	}
}

// TestProviderRetryAsOrdinaryUser runs the provider test again as an
// ordinary user, as most people run it.
func TestProviderRetryAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestRunRetriesTheSameOnEveryProvider$")
}
