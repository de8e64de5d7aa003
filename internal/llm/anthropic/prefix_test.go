package anthropic

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

// referenceEncode is the request body as the whole-struct encoding gives
// it (the encoder this package used before it encoded incrementally):
// the oracle the incremental encoding must match byte for byte.
func referenceEncode(t *testing.T, req llm.Request, maxTokens, budget int) []byte {
	t.Helper()
	w := wireRequest{Model: req.Model, MaxTokens: maxTokens, Stream: true}
	switch {
	case budget == 0:
		w.Thinking = &wireThinking{Type: "disabled"}
	case budget > 0:
		if budget >= maxTokens {
			budget = maxTokens - answerReserve
		}
		budget = max(budget, minThinkingBudget)
		if budget >= w.MaxTokens {
			w.MaxTokens = budget + answerReserve
		}
		w.Thinking = &wireThinking{Type: "enabled", BudgetTokens: budget}
	}
	for _, tl := range req.Tools {
		wt := wireTool{Name: tl.Name, Description: tl.Description, InputSchema: tl.Parameters}
		if len(bytes.TrimSpace(tl.Parameters)) == 0 {
			wt.InputSchema = emptySchema
		}
		w.Tools = append(w.Tools, wt)
	}
	for _, m := range req.Messages {
		if err := w.add(m); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(w.Messages); w.Thinking != nil && w.Thinking.Type == "enabled" && n >= 2 &&
		w.Messages[n-1].Role == "user" && w.Messages[n-1].Content[0].Type == "tool_result" &&
		w.Messages[n-2].Role == "assistant" && w.Messages[n-2].Content[0].Type != "thinking" {
		w.Thinking = &wireThinking{Type: "disabled"}
	}
	if len(w.Tools) > 0 {
		w.Tools[len(w.Tools)-1].CacheControl = ephemeral
	}
	if len(w.System) > 0 {
		w.System[len(w.System)-1].CacheControl = ephemeral
	}
	users := 0
	for i := len(w.Messages) - 1; i >= 0 && users < maxBreakpoints-2; i-- {
		if m := &w.Messages[i]; m.Role == "user" {
			m.Content[len(m.Content)-1].CacheControl = ephemeral
			users++
		}
	}
	body, err := marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestIncrementalEncodingMatchesWholeEncoding grows a long conversation
// one message at a time and checks that every body encoded with a
// PrefixCache is byte for byte the whole-struct encoding: with thinking
// on (so the unsigned tool-use rule is exercised) and off, when the tail
// beyond Stable changes from one request to the next, and when a request
// repeats less than the cache took in.
func TestIncrementalEncodingMatchesWholeEncoding(t *testing.T) {
	conv := llmtest.Conversation(200)
	tools := []llm.ToolSpec{
		{Name: "read", Description: "reads <a> file & more", Parameters: json.RawMessage("{\n  \"type\": \"object\"\n}")},
		{Name: "shell"},
	}
	tests := []struct {
		name   string
		tools  []llm.ToolSpec
		budget int
		lag    int // Stable = len(messages) - lag
	}{
		{name: "thinking", tools: tools, budget: 8192},
		{name: "no thinking field, no tools", budget: -1, lag: 1},
		{name: "thinking disabled", tools: tools, budget: 0, lag: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := llm.NewPrefixCache()
			for n := 1; n <= len(conv); n++ {
				msgs := append([]chat.Message(nil), conv[:n]...)
				if n%5 == 0 {
					msgs = append(msgs, chat.Message{Role: chat.Tool, ToolCallID: fmt.Sprint("tentative", n), Content: protocol.Text("error: no result was recorded")})
				}
				stable := max(n-tt.lag, 0)
				if n%37 == 0 {
					stable = n / 2 // less than the cache took in
				}
				req := llm.Request{Model: "claude-sonnet-4-5", Messages: msgs, Tools: tt.tools, Cache: cache, Stable: stable}
				got, err := encodeRequest(req, DefaultMaxTokens, tt.budget)
				if err != nil {
					t.Fatal(err)
				}
				if n > 40 && n%7 != 0 {
					continue // every request extends the cache; some are compared
				}
				want := referenceEncode(t, req, DefaultMaxTokens, tt.budget)
				if !bytes.Equal(got.Bytes(), want) {
					t.Fatalf("request of %d messages differs from the whole encoding:\n got %s\nwant %s", n, got.Bytes(), want)
				}
				uncached := req
				uncached.Cache = nil
				if plain, err := encodeRequest(uncached, DefaultMaxTokens, tt.budget); err != nil || !bytes.Equal(plain.Bytes(), want) {
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
			req := llm.Request{Model: "claude-sonnet-4-5", Messages: conv, Stable: len(conv) - 1}
			if cached {
				req.Cache = llm.NewPrefixCache()
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encodeRequest(req, DefaultMaxTokens, 8192); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
