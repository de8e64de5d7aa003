package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// FuzzStream feeds arbitrary bytes as the event stream (and as an error
// page): the client must return a response or an *llm.Error, never panic,
// and never print the API key.
func FuzzStream(f *testing.F) {
	f.Add([]byte(sseStart + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"))
	f.Add([]byte("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"f\",\"input\":{}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":7,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"1}\"}}\n\n"))
	f.Add([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"sig\"}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"input_tokens\":null}}\n\n"))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"sk-fuzz-secret\"}}\n\n"))
	f.Add([]byte("<html><title>502</title></html>"))
	f.Add([]byte("data: {\"type\":\"message_start\",\"message\":null}\n\ndata: [DONE]\n\n"))
	const key = "sk-fuzz-secret"
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, c := range []llmtest.Canned{
			{Status: 200, ContentType: "text/event-stream", Body: body},
			{Status: 200, ContentType: "application/json", Body: body},
			{Status: 529, ContentType: "text/html", Body: body},
		} {
			resp, err := cannedClient(c, key).Stream(context.Background(), userRequest("hi"), func(d llm.Delta) {
				if d.Text == "" {
					t.Errorf("empty delta %+v", d)
				}
			})
			if err != nil {
				var e *llm.Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v (%T) is not *llm.Error", err, err)
				}
				if strings.Contains(err.Error(), key) {
					t.Fatalf("error leaks the key: %v", err)
				}
				if utf8.ValidString(string(body)) && !utf8.ValidString(err.Error()) {
					t.Fatalf("invalid UTF-8 in message %q", err.Error())
				}
				continue
			}
			if c.Status != 200 || resp == nil {
				t.Fatalf("status %d accepted: %+v", c.Status, resp)
			}
			u := resp.Usage
			if u.TotalTokens != u.PromptTokens+u.CompletionTokens || u.PromptCacheHitTokens+u.PromptCacheMissTokens != u.PromptTokens {
				t.Fatalf("usage inconsistent: %+v", u)
			}
			for _, tc := range resp.ToolCalls {
				if tc.Arguments == "" {
					t.Fatalf("call %+v without arguments", tc)
				}
			}
			if resp.Reasoning == nil && resp.ReasoningSignature != "" && !json.Valid([]byte(`"`+resp.ReasoningSignature+`"`)) {
				t.Fatalf("signature %q", resp.ReasoningSignature)
			}
		}
	})
}
