package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/llm/openai"
)

func cannedClient(c llmtest.Canned, key string) *openai.Client {
	return openai.New(openai.Config{URL: "https://api.example.com/v1/chat/completions", APIKey: key, HTTPClient: &http.Client{Transport: c}})
}

func FuzzStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte(": OPENROUTER PROCESSING\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"r\",\"tool_calls\":[{\"index\":0,\"id\":\"functions.f:0\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":4}}}\n\n"))
	f.Add([]byte("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"cached_tokens\":3}}\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"overloaded\",\"code\":529}}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\"},{\"id\":\"b\"}]}}]}\n\ndata: [DONE]\n"))
	f.Add([]byte("data: {not json\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_details\":[{\"type\":\"reasoning.text\",\"text\":\"a\",\"index\":0},{\"type\":\"reasoning.encrypted\",\"data\":\"e\"}]}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_details\":[{\"type\":\"reasoning.text\",\"signature\":\"S\",\"index\":0}]},\"finish_reason\":\"stop\"}]}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		c := cannedClient(llmtest.Canned{Status: 200, ContentType: "text/event-stream", Body: body}, "")
		var text strings.Builder
		resp, err := c.Stream(context.Background(), userRequest("m", "hi"), func(d llm.Delta) {
			if d.Kind == llm.TextDelta {
				text.WriteString(d.Text)
			}
		})
		if err != nil {
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not *llm.Error", err, err)
			}
			return
		}
		if resp.Content != text.String() {
			t.Fatalf("content %q differs from deltas %q", resp.Content, text.String())
		}
		if resp.ReasoningItems != nil && !json.Valid(resp.ReasoningItems) {
			t.Fatalf("reasoning items are not JSON: %s", resp.ReasoningItems)
		}
		u := resp.Usage
		if u.PromptCacheMissTokens < 0 || (u.TotalTokens == 0 && u.PromptTokens+u.CompletionTokens != 0) {
			t.Fatalf("usage %+v", u)
		}
	})
}

func FuzzErrorResponse(f *testing.F) {
	const key = "sk-fuzz-secret"
	f.Add(500, "text/html", []byte("<html><title>oops</title></html>"))
	f.Add(401, "application/json", []byte(`{"error":{"message":"bad key sk-fuzz-secret"}}`))
	f.Add(429, "application/json", []byte(`{"error":"slow down"}`))
	f.Add(404, "text/plain", []byte{0xff, 0xfe, 0x00})
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte) {
		status = 400 + (status%200+200)%200
		c := cannedClient(llmtest.Canned{Status: status, ContentType: contentType, Body: body}, key)
		_, err := c.Stream(context.Background(), userRequest("m", "hi"), nil)
		var e *llm.Error
		if !errors.As(err, &e) || e.Status != status {
			t.Fatalf("status %d: error %v", status, err)
		}
		msg := err.Error()
		if strings.Contains(msg, key) {
			t.Fatalf("message leaks the key: %q", msg)
		}
		if utf8.RuneCountInString(msg) > 600 {
			t.Fatalf("message of %d runes", utf8.RuneCountInString(msg))
		}
	})
}
