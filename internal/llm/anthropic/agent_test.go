package anthropic_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/anthropic"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

type echoArgs struct {
	Text string `json:"text"`
}

func echoTool() tool.Tool {
	return tool.Func("echo", "repeats its text", func(ctx context.Context, env *tool.Env, a echoArgs) tool.Result {
		return tool.TextResult("echo: " + a.Text)
	})
}

// runAgent runs one turn of the real agent loop against srv.
func runAgent(t *testing.T, srv *llmtest.AnthropicServer, thinking string) (agent.Outcome, []string, []string) {
	t.Helper()
	p := llm.WithRetry(anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k"}), llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond})
	var events, failures []string
	a := agent.New(agent.Config{
		Provider: p, Model: "claude-sonnet-4-5", Thinking: thinking, Tools: tool.NewRegistry(echoTool()),
		Env: &tool.Env{Workspace: "/"}, Log: agent.NewMemoryLog("t", "You are a test."), Backoff: time.Millisecond,
		Emit: func(e protocol.Event) {
			events = append(events, e.EventName())
			if f, ok := e.(protocol.TurnFailed); ok {
				failures = append(failures, f.Error)
			}
		},
	})
	out, err := a.Turn(context.Background(), protocol.Text("echo a, b, then c"), nil)
	if err != nil {
		t.Fatalf("turn: %v", err)
	}
	return out, events, failures
}

// TestAgentLoop drives a multi-step tool conversation through the real
// turn loop; the server checks every request against Anthropic's rules
// (alternating roles, tool_result for every tool_use in the next message,
// a history that only grows) and models its prompt cache.
func TestAgentLoop(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t,
		llmtest.Reply{Text: "Echoing a and b.", Calls: []llmtest.Call{{Name: "echo", Args: `{"text":"a"}`}, {Name: "echo", Args: `{"text":"b"}`}}},
		llmtest.Calls(llmtest.Call{Name: "echo", Args: `{"text":"c"}`}),
		llmtest.Reply{Reasoning: "All three echoed.", Text: "Done: a, b, c."},
	)
	out, events, failures := runAgent(t, srv, "")
	if !out.OK() || out.Answer != "Done: a, b, c." || out.Steps != 3 || len(failures) > 0 {
		t.Fatalf("outcome %+v, failures %q", out, failures)
	}
	if n := strings.Count(strings.Join(events, " "), "tool_result"); n != 3 {
		t.Errorf("%d tool results in %v", n, events)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	// The third request: user, assistant(text, 2 tool_use), user(2
	// results), assistant(tool_use), user(1 result).
	var roles []string
	for _, m := range reqs[2].Messages {
		var msg struct {
			Role    string
			Content []struct{ Type, Text, Content any }
		}
		if err := json.Unmarshal(m, &msg); err != nil {
			t.Fatal(err)
		}
		roles = append(roles, msg.Role+":"+strconv.Itoa(len(msg.Content)))
	}
	if got := strings.Join(roles, " "); got != "user:1 assistant:3 user:2 assistant:1 user:1" {
		t.Errorf("message shape %s", got)
	}
	if !strings.Contains(string(reqs[2].Body), `"text":"echo: c"`) {
		t.Errorf("tool result missing: %s", reqs[2].Body)
	}
	if out.Usage.PromptCacheHitTokens == 0 || out.Usage.PromptCacheMissTokens == 0 {
		t.Errorf("the stable prefix should be cached across steps: %+v", out.Usage)
	}
}

// TestAgentLoopThinking: with thinking on, the signed thinking of a
// tool-use step goes through the session and back to the API, so the
// server (which insists on it) accepts the continuation with thinking
// still enabled.
func TestAgentLoopThinking(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t,
		llmtest.Reply{Reasoning: "Echo first.", Calls: []llmtest.Call{{Name: "echo", Args: `{"text":"a"}`}}},
		llmtest.Reply{Reasoning: "Done now.", Text: "a"},
	)
	out, events, failures := runAgent(t, srv, "high")
	if !out.OK() || out.Answer != "a" || len(failures) > 0 {
		t.Fatalf("outcome %+v, failures %q", out, failures)
	}
	if !strings.Contains(strings.Join(events, " "), "reasoning_delta") {
		t.Errorf("no reasoning streamed: %v", events)
	}
	reqs := srv.Requests()
	var thinking []string
	for _, r := range reqs {
		var body struct{ Thinking struct{ Type string } }
		_ = json.Unmarshal(r.Body, &body)
		thinking = append(thinking, body.Thinking.Type)
	}
	if strings.Join(thinking, " ") != "enabled enabled" {
		t.Errorf("thinking per request %v", thinking)
	}
	want := `{"type":"thinking","thinking":"Echo first.","signature":"` + llmtest.Signature("Echo first.") + `"}`
	if len(reqs) != 2 || len(reqs[1].Messages) != 3 || !strings.HasPrefix(string(reqs[1].Messages[1]), `{"role":"assistant","content":[`+want) {
		t.Errorf("the signed thinking did not come back: %s", reqs[len(reqs)-1].Body)
	}
}
