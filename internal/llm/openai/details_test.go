package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/llm/openai"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// sse renders chunk deltas (JSON objects) as a finished chat-completions
// stream.
func sse(finish string, deltas ...string) string {
	var b strings.Builder
	for _, d := range deltas {
		fmt.Fprintf(&b, "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s}]}\n\n", d)
	}
	fmt.Fprintf(&b, "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":%q}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n", finish)
	return b.String()
}

func TestReasoningDetailsFold(t *testing.T) {
	tests := []struct {
		name   string
		deltas []string
		want   string // ReasoningItems; "" for nil
	}{
		{"none", []string{`{"content":"hi"}`}, ""},
		{"empty array", []string{`{"reasoning_details":[]}`}, ""},
		{"claude text then signature", []string{
			`{"reasoning":"a","reasoning_details":[{"type":"reasoning.text","text":"a","format":"anthropic-claude-v1","index":0}]}`,
			`{"reasoning":"b\"<","reasoning_details":[{"type":"reasoning.text","text":"b\"<","format":"anthropic-claude-v1","index":0}]}`,
			`{"reasoning_details":[{"type":"reasoning.text","signature":"SIG==","format":"anthropic-claude-v1","index":0}]}`,
		}, `[{"format":"anthropic-claude-v1","index":0,"signature":"SIG==","text":"ab\"<","type":"reasoning.text"}]`},
		{"summary, encrypted and text apart", []string{
			`{"reasoning_details":[{"type":"reasoning.summary","summary":"Plan ","id":"rs_1","format":"openai-responses-v1","index":0}]}`,
			`{"reasoning_details":[{"type":"reasoning.summary","summary":"it.","index":0},{"type":"reasoning.encrypted","data":"enc","id":"rs_1","format":"openai-responses-v1","index":1}]}`,
			`{"reasoning_details":[{"type":"reasoning.text","text":"x","index":2,"signature":null}]}`,
		}, `[{"format":"openai-responses-v1","id":"rs_1","index":0,"summary":"Plan it.","type":"reasoning.summary"},` +
			`{"data":"enc","format":"openai-responses-v1","id":"rs_1","index":1,"type":"reasoning.encrypted"},` +
			`{"index":2,"text":"x","type":"reasoning.text"}]`},
		{"same index, other type is another item", []string{
			`{"reasoning_details":[{"type":"reasoning.text","text":"t","index":0}]}`,
			`{"reasoning_details":[{"type":"reasoning.encrypted","data":"d","index":0}]}`,
		}, `[{"index":0,"text":"t","type":"reasoning.text"},{"data":"d","index":0,"type":"reasoning.encrypted"}]`},
		{"no index merges by position", []string{
			`{"reasoning_details":[{"type":"reasoning.text","text":"a"},{"type":"reasoning.encrypted","data":"d"}]}`,
			`{"reasoning_details":[{"type":"reasoning.text","text":"b"}]}`,
		}, `[{"text":"ab","type":"reasoning.text"},{"data":"d","type":"reasoning.encrypted"}]`},
		{"malformed and foreign fragments are dropped", []string{
			`{"reasoning_details":[1,"x",null,{"text":"no type"},{"type":"reasoning","encrypted_content":"e"},{"type":"reasoning.text","text":"ok","index":0}]}`,
		}, `[{"index":0,"text":"ok","type":"reasoning.text"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cannedClient(llmtest.Canned{Status: 200, ContentType: "text/event-stream", Body: []byte(sse("stop", tt.deltas...))}, "")
			resp, err := c.Stream(context.Background(), userRequest("m", "hi"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.ReasoningItems) != tt.want || (tt.want == "") != (resp.ReasoningItems == nil) {
				t.Errorf("reasoning items\n got %s\nwant %s", resp.ReasoningItems, tt.want)
			}
		})
	}
}

func TestReasoningDetailsEcho(t *testing.T) {
	openRouter := `[{"format":"anthropic-claude-v1","index":0,"signature":"SIG","text":"r","type":"reasoning.text"},{"data":"e","type":"reasoning.encrypted"}]`
	calls := []chat.ToolCall{{ID: "c1", Name: "look", Arguments: `{}`}}
	callsJSON := `"tool_calls":[{"id":"c1","type":"function","function":{"name":"look","arguments":"{}"}}]`
	tests := []struct {
		name  string
		items string // "" for nil
		calls []chat.ToolCall
		want  string
	}{
		{"openrouter items go back", openRouter, calls,
			`{"role":"assistant","reasoning_content":"r","reasoning_details":` + openRouter + `,` + callsJSON + `}`},
		{"openrouter items on a text answer", `[{"type":"reasoning.text","text":"r","index":0}]`, nil,
			`{"role":"assistant","content":"done","reasoning_details":[{"type":"reasoning.text","text":"r","index":0}]}`},
		{"nil sends nothing", "", calls, `{"role":"assistant","reasoning_content":"r",` + callsJSON + `}`},
		{"empty array", `[]`, calls, `{"role":"assistant","reasoning_content":"r",` + callsJSON + `}`},
		{"responses api items", `[{"type":"reasoning","id":"rs_1","encrypted_content":"x","summary":[]}]`, calls,
			`{"role":"assistant","reasoning_content":"r",` + callsJSON + `}`},
		{"one foreign item spoils the lot", `[{"type":"reasoning.text","text":"r"},{"type":"thinking","thinking":"r"}]`, calls,
			`{"role":"assistant","reasoning_content":"r",` + callsJSON + `}`},
		{"not an array", `{"type":"reasoning.text","text":"r"}`, calls,
			`{"role":"assistant","reasoning_content":"r",` + callsJSON + `}`},
		{"not objects", `["reasoning.text"]`, calls,
			`{"role":"assistant","reasoning_content":"r",` + callsJSON + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Text("ok"))
			m := chat.Message{Role: chat.Assistant, ToolCalls: tt.calls, Reasoning: ptr("r")}
			if tt.calls == nil {
				m.Content = protocol.Text("done")
			}
			if tt.items != "" {
				m.ReasoningItems = json.RawMessage(tt.items)
			}
			req := llm.Request{Model: "m", Messages: []chat.Message{{Role: chat.User, Content: protocol.Text("go")}, m}}
			if tt.calls != nil {
				req.Messages = append(req.Messages, chat.Message{Role: chat.Tool, ToolCallID: "c1", Content: protocol.Text("seen")})
			}
			if _, err := openai.New(openai.Config{URL: srv.URL()}).Stream(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			if got := string(srv.Requests()[0].Messages[1]); got != tt.want {
				t.Errorf("assistant message\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// openRouterServer answers chat-completions requests with the scripted
// streams in turn and keeps the request bodies.
type openRouterServer struct {
	mu      sync.Mutex
	replies []string
	bodies  [][]byte
}

func (s *openRouterServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	if n >= len(s.replies) {
		http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, s.replies[n])
}

type noArgs struct{}

// A reasoning item streamed in one step goes back to OpenRouter on the
// next, through the agent's session log.
func TestReasoningDetailsThroughAgent(t *testing.T) {
	const sig = "EqQBCkgIDRAB+/="
	or := &openRouterServer{replies: []string{
		sse("tool_calls",
			`{"role":"assistant","reasoning":"Look","reasoning_details":[{"type":"reasoning.text","text":"Look","format":"anthropic-claude-v1","index":0}]}`,
			`{"reasoning":" first.","reasoning_details":[{"type":"reasoning.text","text":" first.","format":"anthropic-claude-v1","index":0}]}`,
			`{"reasoning_details":[{"type":"reasoning.text","signature":"`+sig+`","format":"anthropic-claude-v1","index":0}]}`,
			`{"tool_calls":[{"index":0,"id":"toolu_1","type":"function","function":{"name":"look","arguments":"{}"}}]}`),
		sse("stop", `{"content":"Seen."}`),
	}}
	srv := httptest.NewServer(or)
	t.Cleanup(srv.Close)
	look := tool.Func("look", "looks", func(ctx context.Context, env *tool.Env, _ noArgs) tool.Result { return tool.TextResult("a cat") })
	a := agent.New(agent.Config{
		Provider: openai.New(openai.Config{URL: srv.URL + "/api/v1/chat/completions"}),
		Model:    "anthropic/claude-haiku-4.5", Tools: tool.NewRegistry(look),
		Env: &tool.Env{Workspace: "/"}, Log: agent.NewMemoryLog("t", "sys"), Backoff: time.Millisecond,
	})
	out, err := a.Turn(context.Background(), protocol.Text("what is it?"), nil)
	if err != nil || !out.OK() || out.Answer != "Seen." {
		t.Fatalf("%+v %v", out, err)
	}
	if len(or.bodies) != 2 {
		t.Fatalf("%d requests, want 2", len(or.bodies))
	}
	var second struct {
		Messages []struct {
			Role             string          `json:"role"`
			ReasoningContent *string         `json:"reasoning_content"`
			ReasoningDetails json.RawMessage `json:"reasoning_details"`
			ToolCalls        []any           `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(or.bodies[1], &second); err != nil {
		t.Fatal(err)
	}
	want := `[{"format":"anthropic-claude-v1","index":0,"signature":"` + sig + `","text":"Look first.","type":"reasoning.text"}]`
	found := false
	for _, m := range second.Messages {
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		found = true
		if string(m.ReasoningDetails) != want {
			t.Errorf("reasoning_details sent back\n got %s\nwant %s", m.ReasoningDetails, want)
		}
		if m.ReasoningContent == nil || *m.ReasoningContent != "Look first." {
			t.Errorf("reasoning_content %v", m.ReasoningContent)
		}
	}
	if !found {
		t.Errorf("no assistant tool-call message in the second request: %s", or.bodies[1])
	}
}
