package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/anthropic"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

func TestErrors(t *testing.T) {
	const key = "sk-ant-very-secret-key"
	tests := []struct {
		name          string
		fail          llmtest.Fail
		status        int
		retryable     bool
		contains      []string
		retryAfter    time.Duration
		maxMessageLen int
	}{
		{"401", llmtest.Fail{Status: 401, Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + key + `"}}`}, 401, false, []string{"API key was refused", "invalid x-api-key", "[redacted]"}, 0, 0},
		{"403", llmtest.Fail{Status: 403}, 403, false, []string{"API key was refused"}, 0, 0},
		{"429 retry-after", llmtest.Fail{Status: 429, RetryAfter: "2"}, 429, true, []string{"rate limited"}, 2 * time.Second, 0},
		{"529 overloaded", llmtest.Fail{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, 529, true, []string{"529", "overloaded", "Overloaded"}, 0, 0},
		{"529 without body", llmtest.Fail{Status: 529, Body: " "}, 529, true, []string{"overloaded"}, 0, 0},
		{"500", llmtest.Fail{Status: 500}, 500, true, []string{"scripted failure"}, 0, 0},
		{"502 html page", llmtest.Fail{Status: 502, Body: "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>"}, 502, true, []string{"502 Bad Gateway"}, 0, 120},
		{"400 prompt too long", llmtest.Fail{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`}, 400, false, []string{"prompt is too long"}, 0, 0},
		{"huge non-JSON body", llmtest.Fail{Status: 500, Body: strings.Repeat("oops ", 100_000)}, 500, true, []string{"oops"}, 0, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t, tt.fail)
			c := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: key})
			_, err := c.Stream(context.Background(), userRequest("hi"), nil)
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
		{"silent mid-stream", llmtest.Stall{After: 4}, "no data"},
		{"cut before any event", llmtest.Cut{Reply: llmtest.Text("hello"), After: 0}, "stream"},
		{"cut after message_start", llmtest.Cut{Reply: llmtest.Text("hello"), After: 1}, "stream"},
		{"cut mid-text", llmtest.Cut{Reply: llmtest.Reply{Text: "hello world", ChunkSize: 2}, After: 5}, "stream"},
		{"cut mid-call", llmtest.Cut{Reply: llmtest.Calls(llmtest.Call{Name: "ls", Args: `{"path":"."}`}), After: 4}, "stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t, tt.turn)
			c := anthropic.New(anthropic.Config{BaseURL: srv.URL(), IdleTimeout: 150 * time.Millisecond})
			start := time.Now()
			_, err := c.Stream(context.Background(), userRequest("hi"), nil)
			if !llm.IsRetryable(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v: want a retryable error mentioning %q", err, tt.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func cannedClient(c llmtest.Canned, key string) *anthropic.Client {
	return anthropic.New(anthropic.Config{APIKey: key, HTTPClient: &http.Client{Transport: c}})
}

const sseStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\",\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":200,\"cache_read_input_tokens\":3000,\"output_tokens\":1}}}\n\n"

func TestCannedStreams(t *testing.T) {
	tests := []struct {
		name      string
		c         llmtest.Canned
		status    int
		retryable bool
		contains  string
	}{
		{"overloaded error event mid-stream", llmtest.Canned{Status: 200, ContentType: "text/event-stream", Body: []byte(sseStart + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")},
			529, true, "Overloaded"},
		{"invalid request error event", llmtest.Canned{Status: 200, ContentType: "text/event-stream", Body: []byte(sseStart + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad\"}}\n\n")},
			400, false, "bad"},
		{"unknown error event", llmtest.Canned{Status: 200, ContentType: "text/event-stream", Body: []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"mystery\"}}\n\n")},
			0, true, "mystery"},
		{"malformed event", llmtest.Canned{Status: 200, ContentType: "text/event-stream", Body: []byte(sseStart + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":\"x\"}\n\n")},
			0, false, "malformed"},
		{"JSON instead of a stream", llmtest.Canned{Status: 200, ContentType: "application/json", Body: []byte(`{"type":"error","error":{"type":"api_error","message":"gateway says no"}}`)},
			200, false, "gateway says no"},
		{"HTML page with 200", llmtest.Canned{Status: 200, ContentType: "text/html; charset=utf-8", Body: []byte("<html><title>Proxy login</title></html>")},
			200, false, "text/html instead of an event stream: Proxy login"},
		{"empty 200 stream", llmtest.Canned{Status: 200, ContentType: "text/event-stream", Body: nil}, 0, true, "ended before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := cannedClient(tt.c, "k").Stream(context.Background(), userRequest("hi"), nil)
			var e *llm.Error
			if !errors.As(err, &e) || e.Status != tt.status || e.Retryable != tt.retryable || !strings.Contains(e.Error(), tt.contains) {
				t.Fatalf("error %#v (%v), want status %d retryable %v mentioning %q", e, err, tt.status, tt.retryable, tt.contains)
			}
		})
	}
}

func TestCacheUsage(t *testing.T) {
	body := sseStart +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":42,\"input_tokens\":null}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	resp, err := cannedClient(llmtest.Canned{Status: 200, ContentType: "text/event-stream; charset=utf-8", Body: []byte(body)}, "").Stream(context.Background(), userRequest("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	u := resp.Usage
	if u.PromptTokens != 3210 || u.PromptCacheHitTokens != 3000 || u.PromptCacheMissTokens != 210 || u.CompletionTokens != 42 || u.TotalTokens != 3252 {
		t.Errorf("usage %+v", u)
	}
	if resp.Content != "ok" || resp.Model != "claude-x" {
		t.Errorf("response %+v", resp)
	}
}
