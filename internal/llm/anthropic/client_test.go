package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/anthropic"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

func userRequest(prompt string) llm.Request {
	return llm.Request{Model: "claude-sonnet-4-5", Messages: []chat.Message{
		{Role: chat.System, Content: protocol.Text("You are terse.")},
		{Role: chat.User, Content: protocol.Text(prompt)},
	}}
}

func TestStreamReply(t *testing.T) {
	usage := &protocol.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120, PromptCacheHitTokens: 64, PromptCacheMissTokens: 36}
	tests := []struct {
		name     string
		reply    llmtest.Reply
		wantArgs []string // "" = the scripted Args
	}{
		{"text", llmtest.Text("Olá! Tudo bem?"), nil},
		{"text one rune per event", llmtest.Reply{Text: "héllo, wörld ✓", ChunkSize: 1}, nil},
		{"thinking then text", llmtest.Reply{Reasoning: "The user greets me.", Text: "Hi.", ChunkSize: 3}, nil},
		{"one call fragmented", llmtest.Reply{Calls: []llmtest.Call{{ID: "toolu_1", Name: "read", Args: `{"path":"a/b.go","limit":20}`}}, ChunkSize: 2}, nil},
		{"parallel calls with thinking and text", llmtest.Reply{Reasoning: "both", Text: "I'll add and multiply.", Calls: []llmtest.Call{
			{Name: "add", Args: `{"a":2,"b":3}`},
			{Name: "multiply", Args: `{"a":2,"b":3}`},
		}}, nil},
		{"call without arguments", llmtest.Calls(llmtest.Call{ID: "toolu_2", Name: "ls"}), []string{"{}"}},
		{"explicit usage", llmtest.Reply{Text: "ok", Usage: usage}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t, tt.reply)
			c := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k"})
			var rec llmtest.Recorder
			resp, err := c.Stream(context.Background(), userRequest("hi"), rec.On)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != tt.reply.Text || rec.Text.String() != tt.reply.Text {
				t.Errorf("text %q (deltas %q), want %q", resp.Content, rec.Text.String(), tt.reply.Text)
			}
			if tt.reply.Reasoning == "" && (resp.Reasoning != nil || resp.ReasoningSignature != "") {
				t.Errorf("reasoning %v signature %q, want none", resp.Reasoning, resp.ReasoningSignature)
			}
			if tt.reply.Reasoning != "" {
				if resp.Reasoning == nil || *resp.Reasoning != tt.reply.Reasoning || rec.Reasoning.String() != tt.reply.Reasoning {
					t.Errorf("reasoning %v (deltas %q), want %q", resp.Reasoning, rec.Reasoning.String(), tt.reply.Reasoning)
				}
				if resp.ReasoningSignature != llmtest.Signature(tt.reply.Reasoning) {
					t.Errorf("signature %q", resp.ReasoningSignature)
				}
			}
			var want []chat.ToolCall
			for i, c := range tt.reply.Calls {
				id := c.ID
				if id == "" {
					id = fmt.Sprintf("toolu_llmtest_1_%d", i)
				}
				args := c.Args
				if tt.wantArgs != nil {
					args = tt.wantArgs[i]
				}
				want = append(want, chat.ToolCall{ID: id, Name: c.Name, Arguments: args})
			}
			if !reflect.DeepEqual(resp.ToolCalls, want) {
				t.Errorf("calls %+v, want %+v", resp.ToolCalls, want)
			}
			wantStop := "end_turn"
			if len(want) > 0 {
				wantStop = "tool_use"
			}
			if resp.FinishReason != wantStop || resp.Model != "claude-sonnet-4-5" {
				t.Errorf("finish %q model %q", resp.FinishReason, resp.Model)
			}
			if tt.reply.Usage != nil && resp.Usage != *tt.reply.Usage {
				t.Errorf("usage %+v, want %+v", resp.Usage, *tt.reply.Usage)
			}
			u := resp.Usage
			if u.PromptTokens == 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens || u.PromptCacheHitTokens+u.PromptCacheMissTokens != u.PromptTokens {
				t.Errorf("usage not accounted: %+v", u)
			}
		})
	}
}

// conversation plays a tool round trip: the model thinks and calls two
// tools, the results go back, the model answers, the user says more.
func conversation(t *testing.T, srv *llmtest.AnthropicServer, keepSignature bool) (llm.Request, []*llm.Response, error) {
	t.Helper()
	c := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k"})
	req := userRequest("What is this repo? " + strings.Repeat("Be thorough. ", 400))
	req.Thinking = "high"
	req.Tools = []llm.ToolSpec{{Name: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}, {Name: "ls"}}
	var resps []*llm.Response
	resp, err := c.Stream(context.Background(), req, nil)
	if err != nil {
		return req, resps, err
	}
	resps = append(resps, resp)
	am := chat.Message{Role: chat.Assistant, Content: protocol.Text(resp.Content), ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning}
	if keepSignature {
		am.ReasoningSignature = resp.ReasoningSignature
	}
	req.Messages = append(req.Messages, am)
	for _, call := range resp.ToolCalls {
		req.Messages = append(req.Messages, chat.Message{Role: chat.Tool, ToolCallID: call.ID, Content: protocol.Text("result of " + call.Name)})
	}
	for i := range 2 {
		if resp, err = c.Stream(context.Background(), req, nil); err != nil {
			return req, resps, err
		}
		resps = append(resps, resp)
		if i == 0 {
			req.Messages = append(req.Messages,
				chat.Message{Role: chat.Assistant, Content: protocol.Text(resp.Content), Reasoning: resp.Reasoning, ReasoningSignature: resp.ReasoningSignature},
				chat.Message{Role: chat.User, Content: protocol.Text("thanks")})
		}
	}
	return req, resps, nil
}

// TestConversation runs a tool round trip against the Anthropic server,
// which rejects a request unless the signed thinking goes back, every
// tool_use is answered in the next message and the history only grows.
func TestConversation(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t,
		llmtest.Reply{Reasoning: "I should look at the files.", Text: "Looking.", Calls: []llmtest.Call{{Name: "read", Args: `{"path":"go.mod"}`}, {Name: "ls", Args: `{}`}}},
		llmtest.Reply{Reasoning: "It is Go.", Text: "It is a Go module."},
		llmtest.Text("Done."),
	)
	_, resps, err := conversation(t, srv, true)
	if err != nil {
		t.Fatal(err)
	}
	if resps[2].Content != "Done." {
		t.Errorf("third reply %q", resps[2].Content)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	// user, assistant (thinking, text, two tool_use), one user message
	// holding both tool results.
	second := reqs[1].Messages
	if len(second) != 3 {
		t.Fatalf("second request has %d messages: %s", len(second), reqs[1].Body)
	}
	var asst, results struct {
		Content []struct {
			Type, Thinking, Signature string
			ToolUseID                 string `json:"tool_use_id"`
		}
	}
	_ = json.Unmarshal(second[1], &asst)
	_ = json.Unmarshal(second[2], &results)
	var types []string
	for _, b := range asst.Content {
		types = append(types, b.Type)
	}
	if strings.Join(types, " ") != "thinking text tool_use tool_use" || asst.Content[0].Signature != llmtest.Signature("I should look at the files.") {
		t.Errorf("assistant message %s", second[1])
	}
	if len(results.Content) != 2 || results.Content[0].ToolUseID != "toolu_llmtest_1_0" || results.Content[1].ToolUseID != "toolu_llmtest_1_1" {
		t.Errorf("tool results not merged into one user message: %s", second[2])
	}
	for i, r := range resps {
		t.Logf("request %d usage %+v", i+1, r.Usage)
	}
	// The conversation is long enough for the cache to matter: each
	// request reads what the one before wrote.
	for i, r := range resps {
		u := r.Usage
		if i == 0 && u.PromptCacheHitTokens != 0 {
			t.Errorf("first request hit the cache: %+v", u)
		}
		if i > 0 && (u.PromptCacheHitTokens < u.PromptTokens/2 || u.PromptCacheMissTokens == 0) {
			t.Errorf("request %d should mostly hit the cache: %+v", i+1, u)
		}
	}
}

func TestConversationWithoutSignatureIsRejected(t *testing.T) {
	rec := &llmtest.RecordingTB{TB: t}
	srv := llmtest.NewAnthropicServer(rec,
		llmtest.Reply{Reasoning: "hmm", Calls: []llmtest.Call{{Name: "ls", Args: `{}`}}},
		llmtest.Text("never"),
	)
	_, _, err := conversation(t, srv, false)
	var e *llm.Error
	if !errors.As(err, &e) || e.Status != 400 || e.Retryable || !strings.Contains(e.Message, "thinking") {
		t.Fatalf("error %v, want a 400 about thinking", err)
	}
	if c := rec.Complaints(); len(c) != 1 || !strings.Contains(c[0], "signature") {
		t.Errorf("complaints %q", c)
	}
}

func TestDeterministicBody(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.Text("a"), llmtest.Text("b"))
	c := anthropic.New(anthropic.Config{BaseURL: srv.URL(), Headers: map[string]string{"a": "1", "b": "2"}})
	req := userRequest("hi")
	req.Thinking = "max"
	req.Tools = []llm.ToolSpec{{Name: "b"}, {Name: "a", Description: "x <&> y"}}
	for range 2 {
		if _, err := c.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
	}
	r := srv.Requests()
	if string(r[0].Body) != string(r[1].Body) {
		t.Errorf("same request encoded differently:\n%s\n%s", r[0].Body, r[1].Body)
	}
	if !strings.Contains(string(r[0].Body), `"description":"x <&> y"`) {
		t.Errorf("HTML-escaped body: %s", r[0].Body)
	}
}

// failingTransport fails the first n round trips, then delegates.
type failingTransport struct{ n int }

func (f *failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.n > 0 {
		f.n--
		return nil, errors.New("connection refused")
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestRetry(t *testing.T) {
	fast := llm.RetryPolicy{Attempts: 5, Base: time.Millisecond, Max: 4 * time.Millisecond}
	srv := llmtest.NewAnthropicServer(t,
		llmtest.Fail{Status: 529},
		llmtest.Fail{Status: 429, RetryAfter: "0.001"},
		llmtest.Cut{Reply: llmtest.Text("x"), After: 2},
		llmtest.Text("finally"),
	)
	hc := &http.Client{Transport: &failingTransport{n: 1}}
	p := llm.WithRetry(anthropic.New(anthropic.Config{BaseURL: srv.URL(), HTTPClient: hc}), fast)
	var rec llmtest.Recorder
	resp, err := p.Stream(context.Background(), userRequest("hi"), rec.On)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "finally" || rec.Text.String() != "finally" {
		t.Errorf("content %q, deltas %q", resp.Content, rec.Text.String())
	}
	var reasons []string
	for _, d := range rec.Retries {
		reasons = append(reasons, d.Reason)
	}
	if len(reasons) != 4 || !strings.Contains(reasons[0], "connection refused") || !strings.Contains(reasons[1], "overloaded") ||
		!strings.Contains(reasons[2], "rate limited") || !strings.Contains(reasons[3], "stream") {
		t.Errorf("retry reasons %q", reasons)
	}
}

func BenchmarkStream(b *testing.B) {
	// 2,000 text_delta events of 4 runes, plus the envelope events.
	reply := llmtest.Reply{Text: strings.Repeat("abcd", 2000), ChunkSize: 4}
	srv := llmtest.NewAnthropicServer(b)
	c := anthropic.New(anthropic.Config{BaseURL: srv.URL()})
	req := userRequest("hi")
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		srv.Push(reply)
		srv.ExpectPrefixBreak()
		b.StartTimer()
		resp, err := c.Stream(context.Background(), req, func(llm.Delta) {})
		if err != nil || len(resp.Content) != 8000 {
			b.Fatalf("err %v, %d bytes", err, len(resp.Content))
		}
	}
}
