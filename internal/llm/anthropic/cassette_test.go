package anthropic_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/anthropic"
	"github.com/openseek/openseek/internal/llm/cassette"
	"github.com/openseek/openseek/protocol"
)

// The go-vcr cassettes recorded by charmbracelet/fantasy (see the README
// beside them) replayed through the client, one test per recorded suite.

func TestAnthropicCommon(t *testing.T)   { cassette.Suite(t, "TestAnthropicCommon", replay) }
func TestAnthropicThinking(t *testing.T) { cassette.Suite(t, "TestAnthropicThinking", replay) }

func replay(t *testing.T, file string) {
	c := cassette.Load(t, file)
	srv := cassette.Serve(t, c, func(n int, r *http.Request) {
		if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "test-key" || r.Header.Get("Anthropic-Version") == "" {
			t.Errorf("request %d: %s with key %q, version %q", n+1, r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"))
		}
	})

	var prev *llm.Response
	for i, it := range c.Interactions {
		var recReq recordedRequest
		if err := json.Unmarshal([]byte(it.Request.Body), &recReq); err != nil {
			t.Fatalf("interaction %d: recorded request: %v", i, err)
		}
		req := recReq.toRequest(t, prev)
		// The recording's own budget, through the Config override.
		client := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "test-key", ThinkingBudget: func(mode string) int {
			if mode == "" {
				return -1
			}
			return recReq.Thinking.BudgetTokens
		}})

		var text, reasoning strings.Builder
		resp, err := client.Stream(context.Background(), req, func(d llm.Delta) {
			switch d.Kind {
			case llm.TextDelta:
				text.WriteString(d.Text)
			case llm.ReasoningDelta:
				reasoning.WriteString(d.Text)
			}
		})
		if err != nil {
			t.Fatalf("interaction %d: %v", i, err)
		}
		want := foldSSE(t, it.Response.Body)
		if resp.Content != want.text || text.String() != want.text {
			t.Errorf("interaction %d text:\n got %q (deltas %q)\nwant %q", i, resp.Content, text.String(), want.text)
		}
		gotReasoning := ""
		if resp.Reasoning != nil {
			gotReasoning = *resp.Reasoning
		}
		if gotReasoning != want.reasoning || reasoning.String() != want.reasoning || (resp.Reasoning != nil) != want.sawThinking {
			t.Errorf("interaction %d reasoning:\n got %q (deltas %q, set %v)\nwant %q", i, gotReasoning, reasoning.String(), resp.Reasoning != nil, want.reasoning)
		}
		if resp.ReasoningSignature != want.signature {
			t.Errorf("interaction %d signature: got %q, want %q", i, resp.ReasoningSignature, want.signature)
		}
		if !reflect.DeepEqual(resp.ToolCalls, want.calls) {
			t.Errorf("interaction %d tool calls:\n got %+v\nwant %+v", i, resp.ToolCalls, want.calls)
		}
		if resp.Usage != want.usage {
			t.Errorf("interaction %d usage:\n got %+v\nwant %+v", i, resp.Usage, want.usage)
		}
		if resp.FinishReason != want.stop || resp.Model != want.model {
			t.Errorf("interaction %d finish/model: got %q/%q want %q/%q", i, resp.FinishReason, resp.Model, want.stop, want.model)
		}
		prev = resp
	}
	sent := srv.Sent()
	if len(sent) != len(c.Interactions) {
		t.Errorf("sent %d requests, recorded %d", len(sent), len(c.Interactions))
	}
	for i, body := range sent {
		checkSent(t, i, body, c.Interactions[i].Request.Body)
	}
}

// recordedRequest is the part of a recorded Messages request that drives
// ours and that ours is compared with.
type recordedRequest struct {
	Model     string         `json:"model"`
	MaxTokens int            `json:"max_tokens"`
	System    []recBlock     `json:"system"`
	Messages  []recMessage   `json:"messages"`
	Tools     []recordedTool `json:"tools"`
	Thinking  struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
	Stream bool `json:"stream"`
}

type recMessage struct {
	Role    string     `json:"role"`
	Content []recBlock `json:"content"`
}

type recBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   []recBlock      `json:"content"`
}

type recordedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// toRequest rebuilds the recorded request as a chat conversation; the
// assistant turn comes from the client's own previous response, as in a
// real conversation, and each tool_result becomes a tool message.
func (r recordedRequest) toRequest(t *testing.T, prev *llm.Response) llm.Request {
	req := llm.Request{Model: r.Model, MaxTokens: r.MaxTokens}
	if r.Thinking.Type == "enabled" {
		req.Thinking = "high"
	}
	for _, tl := range r.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Name, Description: tl.Description, Parameters: tl.InputSchema})
	}
	for _, b := range r.System {
		req.Messages = append(req.Messages, chat.Message{Role: chat.System, Content: protocol.Text(b.Text)})
	}
	for _, m := range r.Messages {
		switch m.Role {
		case "assistant":
			if prev == nil {
				t.Fatal("recorded assistant message before any response")
			}
			req.Messages = append(req.Messages, chat.Message{Role: chat.Assistant, Content: protocol.Text(prev.Content), ToolCalls: prev.ToolCalls, Reasoning: prev.Reasoning, ReasoningSignature: prev.ReasoningSignature})
		default:
			for _, b := range m.Content {
				switch b.Type {
				case "tool_result":
					var text strings.Builder
					for _, c := range b.Content {
						text.WriteString(c.Text)
					}
					req.Messages = append(req.Messages, chat.Message{Role: chat.Tool, ToolCallID: b.ToolUseID, Content: protocol.Text(text.String())})
				case "text":
					req.Messages = append(req.Messages, chat.Message{Role: chat.User, Content: protocol.Text(b.Text)})
				default:
					t.Fatalf("unexpected recorded block %q", b.Type)
				}
			}
		}
	}
	return req
}

// checkSent compares what the client sent with what the recording client
// sent: model, max_tokens, system, tools, thinking, and every message
// block for block (text, thinking with its signature, tool_use with its
// input, tool_result with its content), ignoring cache_control.
func checkSent(t *testing.T, i int, body []byte, recordedBody string) {
	t.Helper()
	var got, want recordedRequest
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("request %d is not JSON: %v", i, err)
	}
	if err := json.Unmarshal([]byte(recordedBody), &want); err != nil {
		t.Fatal(err)
	}
	if !got.Stream || got.Model != want.Model || got.MaxTokens != want.MaxTokens || got.Thinking != want.Thinking {
		t.Errorf("request %d: stream %v model %q max_tokens %d thinking %+v, recorded %q %d %+v", i, got.Stream, got.Model, got.MaxTokens, got.Thinking, want.Model, want.MaxTokens, want.Thinking)
	}
	if !blocksEqual(got.System, want.System) {
		t.Errorf("request %d system: got %+v, recorded %+v", i, got.System, want.System)
	}
	if len(got.Tools) != len(want.Tools) {
		t.Fatalf("request %d: %d tools, recorded %d", i, len(got.Tools), len(want.Tools))
	}
	for j, tl := range got.Tools {
		w := want.Tools[j]
		if tl.Name != w.Name || tl.Description != w.Description || !jsonEqual(tl.InputSchema, w.InputSchema) {
			t.Errorf("request %d tool %d: got %+v, recorded %+v", i, j, tl, w)
		}
	}
	if len(got.Messages) != len(want.Messages) {
		t.Fatalf("request %d: %d messages, recorded %d", i, len(got.Messages), len(want.Messages))
	}
	for j, m := range got.Messages {
		w := want.Messages[j]
		if m.Role != w.Role || !blocksEqual(m.Content, w.Content) {
			gotJSON, _ := json.Marshal(m)
			wantJSON, _ := json.Marshal(w)
			t.Errorf("request %d message %d:\n got %s\nwant %s", i, j, gotJSON, wantJSON)
		}
	}
}

func blocksEqual(a, b []recBlock) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Type != y.Type || x.Text != y.Text || x.Thinking != y.Thinking || x.Signature != y.Signature ||
			x.ID != y.ID || x.Name != y.Name || x.ToolUseID != y.ToolUseID || !blocksEqual(x.Content, y.Content) {
			return false
		}
		if (len(x.Input) > 0 || len(y.Input) > 0) && !jsonEqual(x.Input, y.Input) {
			return false
		}
	}
	return true
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// expected is the test's own fold of a recorded SSE body, written against
// generic JSON so that it shares nothing with the client's decoding.
type expected struct {
	text, reasoning, signature string
	sawThinking                bool
	calls                      []chat.ToolCall
	usage                      protocol.Usage
	stop, model                string
}

func foldSSE(t *testing.T, body string) expected {
	t.Helper()
	var e expected
	callAt := map[float64]int{} // block index → calls slot
	usage := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		payload, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(strings.TrimSpace(payload)), &ev); err != nil {
			t.Fatalf("recorded event is not JSON: %v: %s", err, payload)
		}
		idx, _ := ev["index"].(float64)
		switch ev["type"] {
		case "message_start":
			msg := ev["message"].(map[string]any)
			e.model, _ = msg["model"].(string)
			for k, v := range msg["usage"].(map[string]any) {
				if n, ok := v.(float64); ok {
					usage[k] = n
				}
			}
		case "content_block_start":
			cb := ev["content_block"].(map[string]any)
			switch cb["type"] {
			case "thinking":
				e.sawThinking = true
			case "tool_use":
				callAt[idx] = len(e.calls)
				e.calls = append(e.calls, chat.ToolCall{ID: cb["id"].(string), Name: cb["name"].(string)})
			}
		case "content_block_delta":
			d := ev["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				e.text += d["text"].(string)
			case "thinking_delta":
				e.reasoning += d["thinking"].(string)
			case "signature_delta":
				e.signature = d["signature"].(string)
			case "input_json_delta":
				e.calls[callAt[idx]].Arguments += d["partial_json"].(string)
			}
		case "message_delta":
			e.stop, _ = ev["delta"].(map[string]any)["stop_reason"].(string)
			for k, v := range ev["usage"].(map[string]any) {
				if n, ok := v.(float64); ok {
					usage[k] = n
				}
			}
		}
	}
	in, write, read := int(usage["input_tokens"]), int(usage["cache_creation_input_tokens"]), int(usage["cache_read_input_tokens"])
	e.usage = protocol.Usage{
		PromptTokens:          in + write + read,
		CompletionTokens:      int(usage["output_tokens"]),
		PromptCacheHitTokens:  read,
		PromptCacheMissTokens: in + write,
	}
	e.usage.TotalTokens = e.usage.PromptTokens + e.usage.CompletionTokens
	if e.usage.PromptTokens == 0 || e.usage.CompletionTokens == 0 || e.stop == "" {
		t.Errorf("recording looks incomplete: usage %v stop %q", usage, e.stop)
	}
	for _, c := range e.calls {
		if !json.Valid([]byte(c.Arguments)) {
			t.Errorf("recorded call %s input is not JSON: %q", c.ID, c.Arguments)
		}
	}
	return e
}
