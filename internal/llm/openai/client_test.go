package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/llm/openai"
	"github.com/openseek/openseek/protocol"
)

func userRequest(model, prompt string) llm.Request {
	return llm.Request{Model: model, Messages: []chat.Message{
		{Role: chat.System, Content: protocol.Text("You are terse.")},
		{Role: chat.User, Content: protocol.Text(prompt)},
	}}
}

func ptr(s string) *string { return &s }

func TestStreamReply(t *testing.T) {
	usage := &protocol.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120, PromptCacheHitTokens: 64, PromptCacheMissTokens: 36}
	tests := []struct {
		name  string
		reply llmtest.Reply
	}{
		{"text", llmtest.Text("Olá! Tudo bem?")},
		{"text one rune per chunk", llmtest.Reply{Text: "héllo, wörld ✓", ChunkSize: 1}},
		{"reasoning then text", llmtest.Reply{Reasoning: "The user greets me.", Text: "Hi.", ChunkSize: 3}},
		{"whitespace-only text", llmtest.Reply{Text: "  ", ChunkSize: 1, Calls: []llmtest.Call{{ID: "functions.weather:0", Name: "weather", Args: `{"location":"Florence"}`}}}},
		{"one call fragmented", llmtest.Reply{Calls: []llmtest.Call{{ID: "call_1", Name: "read", Args: `{"path":"a/b.go","limit":20}`}}, ChunkSize: 2}},
		{"parallel calls", llmtest.Reply{Reasoning: "both", Calls: []llmtest.Call{
			{ID: "functions.add:0", Name: "add", Args: `{"a":2,"b":3}`},
			{ID: "functions.multiply:1", Name: "multiply", Args: `{"a":2,"b":3}`},
		}}},
		{"explicit usage", llmtest.Reply{Text: "ok", Usage: usage}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.reply)
			c := openai.New(openai.Config{URL: srv.URL(), APIKey: "k"})
			var rec llmtest.Recorder
			resp, err := c.Stream(context.Background(), userRequest("deepseek-v4-flash", "hi"), rec.On)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != tt.reply.Text || rec.Text.String() != tt.reply.Text {
				t.Errorf("text %q (deltas %q), want %q", resp.Content, rec.Text.String(), tt.reply.Text)
			}
			if tt.reply.Reasoning == "" && resp.Reasoning != nil {
				t.Errorf("reasoning %q, want none", *resp.Reasoning)
			}
			if tt.reply.Reasoning != "" && (resp.Reasoning == nil || *resp.Reasoning != tt.reply.Reasoning || rec.Reasoning.String() != tt.reply.Reasoning) {
				t.Errorf("reasoning %v (deltas %q), want %q", resp.Reasoning, rec.Reasoning.String(), tt.reply.Reasoning)
			}
			var want []chat.ToolCall
			for _, c := range tt.reply.Calls {
				want = append(want, chat.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Args})
			}
			if !reflect.DeepEqual(resp.ToolCalls, want) {
				t.Errorf("calls %+v, want %+v", resp.ToolCalls, want)
			}
			wantFinish := "stop"
			if len(want) > 0 {
				wantFinish = "tool_calls"
			}
			if resp.FinishReason != wantFinish || resp.Model != "deepseek-v4-flash" {
				t.Errorf("finish %q model %q", resp.FinishReason, resp.Model)
			}
			if tt.reply.Usage != nil && resp.Usage != *tt.reply.Usage {
				t.Errorf("usage %+v, want %+v", resp.Usage, *tt.reply.Usage)
			}
			if resp.Usage.PromptTokens == 0 || resp.Usage.TotalTokens != resp.Usage.PromptTokens+resp.Usage.CompletionTokens {
				t.Errorf("usage not accounted: %+v", resp.Usage)
			}
		})
	}
}

// TestConversation runs a tool round trip against llmtest, which rejects
// the second request unless the reasoning goes back, every call is
// answered and the history is a byte-exact prefix.
func TestConversation(t *testing.T) {
	tests := []struct {
		name          string
		reasoning     string
		wantReasoning string
	}{
		{"reasoning echoed", "I should look at the file.", `"reasoning_content":"I should look at the file."`},
		{"no reasoning sends empty", "", `"reasoning_content":""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t,
				llmtest.Reply{Reasoning: tt.reasoning, Calls: []llmtest.Call{{Name: "read", Args: `{"path":"go.mod"}`}, {Name: "ls", Args: `{}`}}},
				llmtest.Text("It is a Go module."),
				llmtest.Text("Done."),
			)
			c := openai.New(openai.Config{URL: srv.URL()})
			req := userRequest("deepseek-v4-pro", "What is this repo?")
			req.Tools = []llm.ToolSpec{{Name: "read", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "ls"}}
			resp, err := c.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Messages = append(req.Messages, chat.Message{Role: chat.Assistant, Content: protocol.Text(resp.Content), ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning})
			for _, call := range resp.ToolCalls {
				req.Messages = append(req.Messages, chat.Message{Role: chat.Tool, ToolCallID: call.ID, Content: protocol.Text("result of " + call.Name)})
			}
			resp2, err := c.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Messages = append(req.Messages, chat.Message{Role: chat.Assistant, Content: protocol.Text(resp2.Content)}, chat.Message{Role: chat.User, Content: protocol.Text("thanks")})
			resp3, err := c.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp3.Content != "Done." {
				t.Errorf("third reply %q", resp3.Content)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests", len(reqs))
			}
			if got := string(reqs[1].Messages[2]); !strings.Contains(got, tt.wantReasoning) {
				t.Errorf("assistant message %s lacks %s", got, tt.wantReasoning)
			}
			if !reflect.DeepEqual(reqs[0].Tools, []string{"read", "ls"}) {
				t.Errorf("tools %v", reqs[0].Tools)
			}
			if resp3.Usage.PromptCacheHitTokens == 0 || resp3.Usage.PromptCacheMissTokens == 0 {
				t.Errorf("a growing conversation should hit and miss the cache: %+v", resp3.Usage)
			}
		})
	}
}

func TestRequestBody(t *testing.T) {
	img := protocol.Content{{Type: "text", Text: "what is this?"}, {Type: "image", MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}
	tests := []struct {
		name   string
		cfg    openai.Config
		req    llm.Request
		want   map[string]any // top-level fields that must be present with these values
		absent []string
	}{
		{"deepseek high", openai.Config{}, llm.Request{Model: "deepseek-v4-flash", Thinking: "high"},
			map[string]any{"thinking": map[string]any{"type": "enabled"}, "reasoning_effort": "high", "stream": true, "stream_options": map[string]any{"include_usage": true}}, nil},
		{"deepseek max", openai.Config{}, llm.Request{Model: "deepseek-v4-pro", Thinking: "max"},
			map[string]any{"thinking": map[string]any{"type": "enabled"}, "reasoning_effort": "max"}, nil},
		{"deepseek no", openai.Config{}, llm.Request{Model: "deepseek-v4-flash", Thinking: "no"},
			map[string]any{"thinking": map[string]any{"type": "disabled"}}, []string{"reasoning_effort"}},
		{"kimi no", openai.Config{}, llm.Request{Model: "kimi-k2.7-code", Thinking: "no"},
			map[string]any{"thinking": map[string]any{"type": "disabled"}}, []string{"reasoning_effort"}},
		{"glm no is low effort", openai.Config{}, llm.Request{Model: "glm-5.3", Thinking: "no"},
			map[string]any{"thinking": map[string]any{"type": "enabled"}, "reasoning_effort": "low"}, nil},
		{"unknown model high", openai.Config{}, llm.Request{Model: "gpt-oss-20b", Thinking: "high"},
			map[string]any{"reasoning_effort": "high"}, []string{"thinking"}},
		{"default thinking sends nothing", openai.Config{}, llm.Request{Model: "deepseek-v4-flash"},
			nil, []string{"thinking", "reasoning_effort", "max_tokens", "tools"}},
		{"extra body wins", openai.Config{ExtraBody: map[string]any{"reasoning_effort": "low", "temperature": 0.5}}, llm.Request{Model: "deepseek-v4-flash", Thinking: "max", MaxTokens: 1000},
			map[string]any{"reasoning_effort": "low", "temperature": 0.5, "max_tokens": float64(1000)}, nil},
		{"config thinking override", openai.Config{Thinking: func(string) map[string]any { return map[string]any{"reasoning": map[string]any{"effort": "high"}} }}, llm.Request{Model: "x", Thinking: "high"},
			map[string]any{"reasoning": map[string]any{"effort": "high"}}, []string{"reasoning_effort"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Text("ok"))
			tt.cfg.URL = srv.URL()
			tt.req.Messages = []chat.Message{{Role: chat.User, Content: protocol.Text("hi")}}
			if _, err := openai.New(tt.cfg).Stream(context.Background(), tt.req, nil); err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.want {
				if !reflect.DeepEqual(body[k], v) {
					t.Errorf("%s = %#v, want %#v", k, body[k], v)
				}
			}
			for _, k := range tt.absent {
				if _, ok := body[k]; ok {
					t.Errorf("%s sent: %v", k, body[k])
				}
			}
		})
	}

	t.Run("messages", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Text("a PNG"))
		srv.RequireReasoning(true)
		req := llm.Request{Model: "m", Messages: []chat.Message{
			{Role: chat.System, Content: protocol.Text("sys <&>")},
			{Role: chat.User, Content: img},
			{Role: chat.Assistant, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "look", Arguments: `{}`}}},
			{Role: chat.Tool, ToolCallID: "c1", Content: protocol.Text("seen")},
		}}
		if _, err := openai.New(openai.Config{URL: srv.URL()}).Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		got := srv.Requests()[0].Messages
		want := []string{
			`{"role":"system","content":"sys <&>"}`,
			`{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}}]}`,
			`{"role":"assistant","reasoning_content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"look","arguments":"{}"}}]}`,
			`{"role":"tool","content":"seen","tool_call_id":"c1"}`,
		}
		for i := range want {
			if string(got[i]) != want[i] {
				t.Errorf("message %d:\n got %s\nwant %s", i, got[i], want[i])
			}
		}
	})

	t.Run("headers", func(t *testing.T) {
		for _, key := range []string{"sk-secret", ""} {
			srv := llmtest.NewServer(t, llmtest.Text("ok"))
			c := openai.New(openai.Config{URL: srv.URL(), APIKey: key, Headers: map[string]string{"HTTP-Referer": "https://openseek.dev"}})
			if _, err := c.Stream(context.Background(), userRequest("m", "hi"), nil); err != nil {
				t.Fatal(err)
			}
			h := srv.Requests()[0].Header
			wantAuth := ""
			if key != "" {
				wantAuth = "Bearer " + key
			}
			if h.Get("Accept") != "text/event-stream" {
				t.Errorf("Accept %q", h.Get("Accept"))
			}
			if h.Get("Authorization") != wantAuth || h.Get("HTTP-Referer") != "https://openseek.dev" {
				t.Errorf("key %q: Authorization %q, Referer %q", key, h.Get("Authorization"), h.Get("HTTP-Referer"))
			}
		}
	})
}

func TestDeterministicBody(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("a"), llmtest.Text("b"))
	c := openai.New(openai.Config{URL: srv.URL(), ExtraBody: map[string]any{"a": 1, "b": 2, "c": 3}})
	req := userRequest("deepseek-v4-flash", "hi")
	req.Thinking = "high"
	for range 2 {
		if _, err := c.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
	}
	r := srv.Requests()
	if string(r[0].Body) != string(r[1].Body) {
		t.Errorf("same request encoded differently:\n%s\n%s", r[0].Body, r[1].Body)
	}
}

func TestErrors(t *testing.T) {
	const key = "sk-very-secret-key"
	tests := []struct {
		name          string
		fail          llmtest.Fail
		status        int
		retryable     bool
		contains      []string
		retryAfter    time.Duration
		maxMessageLen int
	}{
		{"401", llmtest.Fail{Status: 401, Body: `{"error":{"message":"Authentication Fails, Your api key: ****` + key + ` is invalid","type":"authentication_error"}}`}, 401, false, []string{"API key was refused", "Authentication Fails"}, 0, 0},
		{"403", llmtest.Fail{Status: 403}, 403, false, []string{"API key was refused"}, 0, 0},
		{"429 retry-after", llmtest.Fail{Status: 429, RetryAfter: "2"}, 429, true, []string{"rate limited"}, 2 * time.Second, 0},
		{"500", llmtest.Fail{Status: 500}, 500, true, []string{"scripted failure"}, 0, 0},
		{"503 text", llmtest.Fail{Status: 503, Body: "upstream connect error or disconnect/reset before headers"}, 503, true, []string{"503", "upstream connect error"}, 0, 0},
		{"502 html page", llmtest.Fail{Status: 502, Body: "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"}, 502, true, []string{"502 Bad Gateway"}, 0, 120},
		{"400 context length", llmtest.Fail{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 131072 tokens","type":"invalid_request_error"}}`}, 400, false, []string{"maximum context length"}, 0, 0},
		{"huge non-JSON body", llmtest.Fail{Status: 500, Body: strings.Repeat("oops ", 100_000)}, 500, true, []string{"oops"}, 0, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.fail)
			c := openai.New(openai.Config{URL: srv.URL(), APIKey: key})
			_, err := c.Stream(context.Background(), userRequest("m", "hi"), nil)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not *llm.Error", err, err)
			}
			if e.Status != tt.status || e.Retryable != tt.retryable || llm.IsRetryable(err) != tt.retryable {
				t.Errorf("status %d retryable %v, want %d %v", e.Status, e.Retryable, tt.status, tt.retryable)
			}
			msg := err.Error()
			for _, s := range tt.contains {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q lacks %q", msg, s)
				}
			}
			if strings.Contains(msg, key) {
				t.Errorf("message leaks the key: %q", msg)
			}
			if e.RetryAfter != tt.retryAfter {
				t.Errorf("RetryAfter %v, want %v", e.RetryAfter, tt.retryAfter)
			}
			if tt.maxMessageLen > 0 && len(msg) > tt.maxMessageLen {
				t.Errorf("message too long (%d): %q", len(msg), msg)
			}
		})
	}
}

func TestBrokenStreams(t *testing.T) {
	tests := []struct {
		name string
		turn llmtest.Turn
		want string
	}{
		{"silent before headers", llmtest.Stall{}, "no data"},
		{"silent mid-stream", llmtest.Stall{After: 2}, "no data"},
		{"cut before any chunk", llmtest.Cut{Reply: llmtest.Text("hello"), After: 0}, "stream"},
		{"cut mid-stream", llmtest.Cut{Reply: llmtest.Reply{Text: "hello world", ChunkSize: 2}, After: 3}, "stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.turn)
			c := openai.New(openai.Config{URL: srv.URL(), IdleTimeout: 150 * time.Millisecond})
			start := time.Now()
			_, err := c.Stream(context.Background(), userRequest("m", "hi"), nil)
			if !llm.IsRetryable(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v: want a retryable error mentioning %q", err, tt.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
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
	t.Run("429, 500, cut, then success", func(t *testing.T) {
		srv := llmtest.NewServer(t,
			llmtest.Fail{Status: 429},
			llmtest.Fail{Status: 500},
			llmtest.Cut{Reply: llmtest.Text("x"), After: 0},
			llmtest.Text("finally"),
		)
		hc := &http.Client{Transport: &failingTransport{}}
		p := llm.WithRetry(openai.New(openai.Config{URL: srv.URL(), HTTPClient: hc}), fast)
		var rec llmtest.Recorder
		resp, err := p.Stream(context.Background(), userRequest("m", "hi"), rec.On)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Content != "finally" || rec.Text.String() != "finally" {
			t.Errorf("content %q, deltas %q", resp.Content, rec.Text.String())
		}
		var attempts []int
		for _, d := range rec.Retries {
			attempts = append(attempts, d.Attempt)
			if d.MaxAttempts != 5 || d.Reason == "" {
				t.Errorf("retry delta %+v", d)
			}
		}
		if !reflect.DeepEqual(attempts, []int{2, 3, 4}) {
			t.Errorf("retry attempts %v", attempts)
		}
		if n := len(srv.Requests()); n != 4 {
			t.Errorf("%d requests", n)
		}
	})
	t.Run("transport error", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Text("up"))
		hc := &http.Client{Transport: &failingTransport{n: 2}}
		p := llm.WithRetry(openai.New(openai.Config{URL: srv.URL(), HTTPClient: hc}), fast)
		var rec llmtest.Recorder
		resp, err := p.Stream(context.Background(), userRequest("m", "hi"), rec.On)
		if err != nil || resp.Content != "up" || len(rec.Retries) != 2 {
			t.Fatalf("resp %v err %v retries %d", resp, err, len(rec.Retries))
		}
		if !strings.Contains(rec.Retries[0].Reason, "connection refused") {
			t.Errorf("reason %q", rec.Retries[0].Reason)
		}
	})
	t.Run("no retry after the first delta", func(t *testing.T) {
		srv := llmtest.NewServer(t,
			llmtest.Cut{Reply: llmtest.Reply{Text: "partial answer", ChunkSize: 4}, After: 3},
			llmtest.Text("never sent"),
		)
		p := llm.WithRetry(openai.New(openai.Config{URL: srv.URL()}), fast)
		var rec llmtest.Recorder
		_, err := p.Stream(context.Background(), userRequest("m", "hi"), rec.On)
		if !llm.IsRetryable(err) {
			t.Fatalf("error %v", err)
		}
		if len(rec.Retries) != 0 || len(srv.Requests()) != 1 || srv.Remaining() != 1 {
			t.Errorf("retried after streaming: %d retries, %d requests", len(rec.Retries), len(srv.Requests()))
		}
		if rec.Text.String() != "partial " {
			t.Errorf("streamed %q", rec.Text.String())
		}
	})
	t.Run("401 is not retried", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Fail{Status: 401}, llmtest.Text("never"))
		p := llm.WithRetry(openai.New(openai.Config{URL: srv.URL(), APIKey: "bad"}), fast)
		var rec llmtest.Recorder
		_, err := p.Stream(context.Background(), userRequest("m", "hi"), rec.On)
		if err == nil || len(rec.Retries) != 0 || len(srv.Requests()) != 1 {
			t.Errorf("err %v, %d retries", err, len(rec.Retries))
		}
	})
	t.Run("gives up after the last attempt", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Fail{Status: 502}, llmtest.Fail{Status: 502}, llmtest.Fail{Status: 502})
		p := llm.WithRetry(openai.New(openai.Config{URL: srv.URL()}), llm.RetryPolicy{Attempts: 3, Base: time.Millisecond, Max: time.Millisecond})
		var rec llmtest.Recorder
		_, err := p.Stream(context.Background(), userRequest("m", "hi"), rec.On)
		var e *llm.Error
		if !errors.As(err, &e) || e.Status != 502 || len(rec.Retries) != 2 {
			t.Errorf("err %v, %d retries", err, len(rec.Retries))
		}
	})
}

func TestBadURL(t *testing.T) {
	for _, u := range []string{"", "api.deepseek.com/chat/completions", "://x"} {
		_, err := openai.New(openai.Config{URL: u}).Stream(context.Background(), userRequest("m", "hi"), nil)
		if err == nil || llm.IsRetryable(err) || !strings.Contains(err.Error(), "URL") {
			t.Errorf("URL %q: error %v", u, err)
		}
	}
}

func BenchmarkStream(b *testing.B) {
	// 2,000 text chunks of 4 runes, plus role, finish and usage chunks.
	reply := llmtest.Reply{Text: strings.Repeat("abcd", 2000), ChunkSize: 4}
	srv := llmtest.NewServer(b)
	c := openai.New(openai.Config{URL: srv.URL()})
	req := userRequest("m", "hi")
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
