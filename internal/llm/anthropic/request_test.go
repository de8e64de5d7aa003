package anthropic_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/anthropic"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// sentBody sends req through a fresh client and server and returns the
// request body as generic JSON.
func sentBody(t *testing.T, cfg anthropic.Config, req llm.Request) map[string]any {
	t.Helper()
	srv := llmtest.NewAnthropicServer(t, llmtest.Text("ok"))
	cfg.BaseURL = srv.URL()
	if _, err := anthropic.New(cfg).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

func TestThinkingAndMaxTokens(t *testing.T) {
	tests := []struct {
		name          string
		cfg           anthropic.Config
		thinking      string
		maxTokens     int
		wantThinking  any // nil = absent
		wantMaxTokens float64
	}{
		{"default sends nothing", anthropic.Config{}, "", 0, nil, 32000},
		{"no disables", anthropic.Config{}, "no", 0, map[string]any{"type": "disabled"}, 32000},
		{"high is 8k", anthropic.Config{}, "high", 0, map[string]any{"type": "enabled", "budget_tokens": 8192.0}, 32000},
		{"max is cut below the default max_tokens", anthropic.Config{}, "max", 0, map[string]any{"type": "enabled", "budget_tokens": 27904.0}, 32000},
		{"max is 32k with room", anthropic.Config{MaxTokens: 64000}, "max", 0, map[string]any{"type": "enabled", "budget_tokens": 32768.0}, 64000},
		{"request max_tokens wins", anthropic.Config{MaxTokens: 64000}, "high", 16000, map[string]any{"type": "enabled", "budget_tokens": 8192.0}, 16000},
		{"tiny max_tokens is raised for the minimum budget", anthropic.Config{}, "high", 1000, map[string]any{"type": "enabled", "budget_tokens": 1024.0}, 1024 + 4096},
		{"unknown mode sends nothing", anthropic.Config{}, "medium", 0, nil, 32000},
		{"config override", anthropic.Config{ThinkingBudget: func(m string) int {
			if m == "high" {
				return 2000
			}
			return -1
		}}, "high", 0, map[string]any{"type": "enabled", "budget_tokens": 2000.0}, 32000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := userRequest("hi")
			req.Thinking, req.MaxTokens = tt.thinking, tt.maxTokens
			body := sentBody(t, tt.cfg, req)
			if !reflect.DeepEqual(body["thinking"], tt.wantThinking) {
				t.Errorf("thinking %#v, want %#v", body["thinking"], tt.wantThinking)
			}
			if body["max_tokens"] != tt.wantMaxTokens || body["stream"] != true || body["model"] != "claude-sonnet-4-5" {
				t.Errorf("max_tokens %v stream %v model %v", body["max_tokens"], body["stream"], body["model"])
			}
		})
	}
}

// breakpoints lists where cache_control sits: "tools[i]", "system[i]",
// "messages[i].content[j]".
func breakpoints(body map[string]any) []string {
	var out []string
	mark := func(prefix string, list any) {
		items, _ := list.([]any)
		for i, it := range items {
			if m, ok := it.(map[string]any); ok && m["cache_control"] != nil {
				if !reflect.DeepEqual(m["cache_control"], map[string]any{"type": "ephemeral"}) {
					out = append(out, "bad:"+prefix)
				}
				out = append(out, prefix+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	mark("tools", body["tools"])
	mark("system", body["system"])
	msgs, _ := body["messages"].([]any)
	for i, m := range msgs {
		mark("messages["+strconv.Itoa(i)+"].content", m.(map[string]any)["content"])
	}
	return out
}

func TestCacheBreakpoints(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "read"}, {Name: "ls"}}
	call := func(id string) chat.Message {
		return chat.Message{Role: chat.Assistant, ToolCalls: []chat.ToolCall{{ID: id, Name: "ls", Arguments: "{}"}}}
	}
	result := func(id string) chat.Message {
		return chat.Message{Role: chat.Tool, ToolCallID: id, Content: protocol.Text("files")}
	}
	sys := chat.Message{Role: chat.System, Content: protocol.Text("sys")}
	user := chat.Message{Role: chat.User, Content: protocol.Text("hi")}
	tests := []struct {
		name  string
		tools []llm.ToolSpec
		msgs  []chat.Message
		want  []string
	}{
		{"first request", tools, []chat.Message{sys, user}, []string{"tools[1]", "system[0]", "messages[0].content[0]"}},
		{"no tools, no system", nil, []chat.Message{user}, []string{"messages[0].content[0]"}},
		{"last two user turns", tools, []chat.Message{sys, user, call("a"), result("a"), call("b"), result("b")},
			[]string{"tools[1]", "system[0]", "messages[2].content[0]", "messages[4].content[0]"}},
		{"merged results: the last block", tools, []chat.Message{sys, user, {Role: chat.Assistant, ToolCalls: []chat.ToolCall{{ID: "a", Name: "ls"}, {ID: "b", Name: "ls"}}}, result("a"), result("b")},
			[]string{"tools[1]", "system[0]", "messages[0].content[0]", "messages[2].content[1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := sentBody(t, anthropic.Config{}, llm.Request{Model: "m", Tools: tt.tools, Messages: tt.msgs})
			if got := breakpoints(body); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("breakpoints %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMessagesEncoding(t *testing.T) {
	img := protocol.Content{{Type: "text", Text: "what is this?"}, {Type: "image", MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}
	r := "I will look."
	req := llm.Request{Model: "m", Messages: []chat.Message{
		{Role: chat.System, Content: protocol.Text("sys <&>")},
		{Role: chat.User, Content: img},
		{Role: chat.User, Content: protocol.Text("")}, // dropped: the API rejects empty text
		{Role: chat.User, Content: protocol.Text("and quickly")},
		{Role: chat.Assistant, Content: protocol.Text("Sure."), Reasoning: &r, ReasoningSignature: llmtest.Signature(r), ToolCalls: []chat.ToolCall{
			{ID: "c1", Name: "look", Arguments: `{ "x" : 1 }`},
			{ID: "c2", Name: "look", Arguments: ``},
			{ID: "c3", Name: "look", Arguments: `{"x":`},
		}},
		{Role: chat.Tool, ToolCallID: "c1", Content: protocol.Text("seen")},
		{Role: chat.Tool, ToolCallID: "c2", Content: img},
		{Role: chat.Tool, ToolCallID: "c3", Content: protocol.Text("")},
		{Role: chat.User, Content: protocol.Text("steer")},
	}}
	srv := llmtest.NewAnthropicServer(t, llmtest.Text("ok"))
	if _, err := anthropic.New(anthropic.Config{BaseURL: srv.URL()}).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[0]
	var body struct {
		System json.RawMessage `json:"system"`
	}
	_ = json.Unmarshal(sent.Body, &body)
	if string(body.System) != `[{"type":"text","text":"sys <&>","cache_control":{"type":"ephemeral"}}]` {
		t.Errorf("system %s", body.System)
	}
	want := []string{
		`{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}},{"type":"text","text":"and quickly"}]}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"I will look.","signature":"` + llmtest.Signature(r) + `"},{"type":"text","text":"Sure."},` +
			`{"type":"tool_use","id":"c1","name":"look","input":{"x":1}},{"type":"tool_use","id":"c2","name":"look","input":{}},{"type":"tool_use","id":"c3","name":"look","input":{}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"seen"}]},` +
			`{"type":"tool_result","tool_use_id":"c2","content":[{"type":"text","text":"what is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}}]},` +
			`{"type":"tool_result","tool_use_id":"c3"},{"type":"text","text":"steer","cache_control":{"type":"ephemeral"}}]}`,
	}
	// The first user message also carries a breakpoint (second-to-last
	// user turn).
	want[0] = strings.Replace(want[0], `"text":"and quickly"}`, `"text":"and quickly","cache_control":{"type":"ephemeral"}}`, 1)
	if len(sent.Messages) != len(want) {
		t.Fatalf("%d messages: %s", len(sent.Messages), sent.Body)
	}
	for i := range want {
		if string(sent.Messages[i]) != want[i] {
			t.Errorf("message %d:\n got %s\nwant %s", i, sent.Messages[i], want[i])
		}
	}
	if h := sent.Header; h.Get("Accept") != "text/event-stream" || h.Get("Anthropic-Version") == "" || h.Get("X-Api-Key") != "" {
		t.Errorf("headers %v", h)
	}
}

func TestHeaders(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	srv := llmtest.NewAnthropicServer(t, llmtest.Text("ok"))
	c := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "sk-ant-secret", Headers: map[string]string{"anthropic-beta": "x-2025"}})
	if _, err := c.Stream(context.Background(), userRequest("hi"), nil); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if h.Get("X-Api-Key") != "sk-ant-secret" || h.Get("Anthropic-Beta") != "x-2025" || h.Get("Authorization") != "" {
		t.Errorf("headers %v", h)
	}
}

func TestUnsignedToolUseContinuation(t *testing.T) {
	r := "thought"
	tests := []struct {
		name string
		sig  string
		want string
	}{
		{"signed thinking keeps thinking on", llmtest.Signature(r), "enabled"},
		{"unsigned thinking turns it off for the step", "", "disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := llm.Request{Model: "m", Thinking: "high", Messages: []chat.Message{
				{Role: chat.User, Content: protocol.Text("go")},
				{Role: chat.Assistant, Reasoning: &r, ReasoningSignature: tt.sig, ToolCalls: []chat.ToolCall{{ID: "a", Name: "ls", Arguments: "{}"}}},
				{Role: chat.Tool, ToolCallID: "a", Content: protocol.Text("ok")},
			}}
			body := sentBody(t, anthropic.Config{}, req)
			if got := body["thinking"].(map[string]any)["type"]; got != tt.want {
				t.Errorf("thinking %v, want %s", got, tt.want)
			}
		})
	}
}
