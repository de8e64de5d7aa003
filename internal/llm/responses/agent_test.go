package responses_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/responses"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

type weatherArgs struct {
	City string `json:"city"`
}

func weatherTool() tool.Tool {
	return tool.Func("weather", "current weather of a city", func(ctx context.Context, env *tool.Env, a weatherArgs) tool.Result {
		return tool.TextResult("40 C in " + a.City)
	})
}

// TestAgentLoopOverResponses runs a multi-step tool conversation through
// the real turn loop (internal/agent) against the scripted Responses
// server: a call, two parallel calls, then the answer.
func TestAgentLoopOverResponses(t *testing.T) {
	srv := newScriptServer(t,
		turn{summary: []string{"**Checking** I need the weather"}, encrypted: "enc-1", calls: []call{{"call_1", "weather", `{"city":"Florence"}`}}},
		turn{summary: []string{"**Comparing** two more", "**Done** soon"}, encrypted: "enc-2", text: "Comparing.", cached: 64,
			calls: []call{{"call_2", "weather", `{"city":"Rome"}`}, {"call_3", "weather", `{"city":"Milan"}`}}},
		turn{text: "Florence, Rome and Milan are all at 40 C.", cached: 128},
	)
	p := llm.WithRetry(responses.New(responses.Config{BaseURL: srv.baseURL(), APIKey: "k"}), llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond})
	var events []protocol.Event
	a := agent.New(agent.Config{
		Provider: p, Model: "gpt-5", Thinking: "high",
		Tools: tool.NewRegistry(weatherTool()), Env: &tool.Env{Workspace: t.TempDir()},
		Log: agent.NewMemoryLog("t", "You are terse."), Emit: func(e protocol.Event) { events = append(events, e) },
		Backoff: time.Millisecond,
	})
	out, err := a.Turn(context.Background(), protocol.Text("Weather in Florence, Rome and Milan?"), nil)
	if err != nil || !out.OK() || out.Answer != "Florence, Rome and Milan are all at 40 C." || out.Steps != 3 {
		t.Fatalf("outcome %+v, err %v", out, err)
	}

	reqs := srv.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if r["instructions"] != "You are terse." {
			t.Errorf("request %d instructions %v", i, r["instructions"])
		}
		if eff, _ := r["reasoning"].(map[string]any); eff["effort"] != "medium" || eff["summary"] != "auto" {
			t.Errorf("request %d reasoning %v", i, r["reasoning"])
		}
	}
	// Each call reaches the model again with its tool's output under the
	// same call_id.
	outputs := map[string]string{}
	for _, it := range reqs[2]["input"].([]any) {
		if it := it.(map[string]any); it["type"] == "function_call_output" {
			outputs[it["call_id"].(string)] = it["output"].(string)
		}
	}
	want := map[string]string{"call_1": "40 C in Florence", "call_2": "40 C in Rome", "call_3": "40 C in Milan"}
	for id, w := range want {
		if !strings.Contains(outputs[id], w) {
			t.Errorf("output for %s = %q, want it to contain %q", id, outputs[id], w)
		}
	}

	var reasoning []string
	var hits []int
	for _, e := range events {
		switch e := e.(type) {
		case protocol.ReasoningMessage:
			reasoning = append(reasoning, e.Content)
		case protocol.UsageEvent:
			hits = append(hits, e.Usage.PromptCacheHitTokens)
		}
	}
	wantReasoning := []string{"**Checking** I need the weather", "**Comparing** two more\n\n**Done** soon"}
	if got, _ := json.Marshal(reasoning); string(got) != mustJSON(wantReasoning) {
		t.Errorf("reasoning messages %s", got)
	}
	if got, _ := json.Marshal(hits); string(got) != "[0,64,128]" {
		t.Errorf("cache hits per step %s", got)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
