package responses_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/cassette"
	"github.com/openseek/openseek/internal/llm/responses"
	"github.com/openseek/openseek/protocol"
)

// BenchmarkStreamThinkingCassette decodes the recorded gpt-5 thinking
// stream (≈400 events, reasoning summary, a tool call, encrypted
// reasoning) over loopback HTTP.
func BenchmarkStreamThinkingCassette(b *testing.B) {
	c := cassette.Load(b, filepath.Join(cassette.Dir(b), "TestOpenAIResponsesWithSummaryThinking", "openai-gpt-5", "thinking-streaming.yaml"))
	body := c.Interactions[0].Response.Body
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	client := responses.New(responses.Config{BaseURL: srv.URL})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Stream(context.Background(), hi, func(llm.Delta) {})
		if err != nil || len(resp.ToolCalls) != 1 {
			b.Fatal(resp, err)
		}
	}
}

// BenchmarkLongConversation sends a 200-message tool conversation and
// decodes a short reply: the per-step request cost as history grows.
func BenchmarkLongConversation(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, turn{text: "ok"}.events(1))
	}))
	defer srv.Close()
	items := json.RawMessage(`[{"type":"reasoning","id":"rs","summary":[],"encrypted_content":"gAAAAA"}]`)
	req := llm.Request{Model: "gpt-5", Thinking: "high", Messages: []chat.Message{{Role: chat.System, Content: protocol.Text("system prompt")}},
		Tools: []llm.ToolSpec{{Name: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
	for i := range 100 {
		id := fmt.Sprint("call_", i)
		req.Messages = append(req.Messages,
			chat.Message{Role: chat.Assistant, ReasoningItems: items, ToolCalls: []chat.ToolCall{{ID: id, Name: "read", Arguments: `{"path":"main.go"}`}}},
			chat.Message{Role: chat.Tool, ToolCallID: id, Content: protocol.Text("package main\n\nfunc main() {}\n")})
	}
	client := responses.New(responses.Config{BaseURL: srv.URL})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := client.Stream(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}
