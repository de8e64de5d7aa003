package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// referenceRequest is the request body as a whole-struct encoding gives
// it (the encoder this package used before it encoded incrementally):
// the oracle the incremental encoding must match byte for byte.
type referenceRequest struct {
	Model         string        `json:"model"`
	Messages      []wireMessage `json:"messages"`
	Tools         []wireTool    `json:"tools,omitempty"`
	MaxTokens     int           `json:"max_tokens,omitempty"`
	Stream        bool          `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func referenceEncode(t *testing.T, req llm.Request, extra map[string]any) []byte {
	t.Helper()
	w := referenceRequest{Model: req.Model, MaxTokens: req.MaxTokens, Stream: true}
	w.StreamOptions.IncludeUsage = true
	w.Messages = make([]wireMessage, 0, len(req.Messages))
	for _, m := range req.Messages {
		wm, err := encodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		w.Messages = append(w.Messages, wm)
	}
	for _, tl := range req.Tools {
		var wt wireTool
		wt.Type = "function"
		wt.Function.Name = tl.Name
		wt.Function.Description = tl.Description
		wt.Function.Parameters = tl.Parameters
		if len(bytes.TrimSpace(tl.Parameters)) == 0 {
			wt.Function.Parameters = emptySchema
		}
		w.Tools = append(w.Tools, wt)
	}
	body, err := marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(extra) == 0 {
		return body
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatal(err)
	}
	for k, v := range extra {
		raw, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		top[k] = raw
	}
	body, err = marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

var testTools = []llm.ToolSpec{
	{Name: "read", Description: "reads <a> file & more", Parameters: json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\"path\": {\"type\": \"string\"}}\n}")},
	{Name: "shell", Parameters: nil},
}

// TestIncrementalEncodingMatchesWholeEncoding grows a long conversation
// one message at a time and checks that every body encoded with a
// PrefixCache is byte for byte the whole-struct encoding, with and
// without extra body fields and tools, when the tail beyond Stable
// changes from one request to the next, and when one cache is used by
// requests whose Stable lags.
func TestIncrementalEncodingMatchesWholeEncoding(t *testing.T) {
	conv := llmtest.Conversation(200)
	tests := []struct {
		name      string
		tools     []llm.ToolSpec
		extra     map[string]any
		maxTokens int
		lag       int // Stable = len(messages) - lag
	}{
		{name: "plain", tools: testTools},
		{name: "no tools", lag: 1},
		{name: "thinking and extras", tools: testTools, extra: map[string]any{"thinking": map[string]any{"type": "enabled"}, "temperature": 0.2, "<html>": "a&b"}, maxTokens: 1000, lag: 2},
		{name: "extras override typed fields", tools: testTools, extra: map[string]any{"stream_options": map[string]bool{"include_usage": false}, "model": "other"}, lag: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := llm.NewPrefixCache()
			for n := 1; n <= len(conv); n++ {
				msgs := append([]chat.Message(nil), conv[:n]...)
				if n%5 == 0 {
					// A tentative tail message (a synthetic result)
					// that the next request does not repeat.
					msgs = append(msgs, chat.Message{Role: chat.Tool, ToolCallID: fmt.Sprint("tentative", n), Content: protocol.Text("error: no result was recorded")})
				}
				req := llm.Request{Model: "deepseek-chat", Messages: msgs, Tools: tt.tools, MaxTokens: tt.maxTokens, Cache: cache, Stable: max(n-tt.lag, 0)}
				got, err := encodeRequest(req, tt.extra)
				if err != nil {
					t.Fatal(err)
				}
				if n > 40 && n%7 != 0 {
					continue // every request extends the cache; some are compared
				}
				want := referenceEncode(t, req, tt.extra)
				if !bytes.Equal(got.Bytes(), want) {
					t.Fatalf("request of %d messages differs from the whole encoding:\n got %s\nwant %s", n, got.Bytes(), want)
				}
				uncached := req
				uncached.Cache = nil
				if plain, err := encodeRequest(uncached, tt.extra); err != nil || !bytes.Equal(plain.Bytes(), want) {
					t.Fatalf("uncached request of %d messages differs from the whole encoding (%v)", n, err)
				}
			}
		})
	}
}

func BenchmarkEncodeRequest(b *testing.B) {
	conv := llmtest.Conversation(2000)
	for _, cached := range []bool{false, true} {
		b.Run(fmt.Sprint("cached=", cached), func(b *testing.B) {
			req := llm.Request{Model: "deepseek-chat", Messages: conv, Tools: testTools, Stable: len(conv) - 1}
			if cached {
				req.Cache = llm.NewPrefixCache()
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encodeRequest(req, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
