package responses

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

// TestIncrementalEncodingMatchesWholeEncoding grows a long conversation
// one message at a time and checks that every body encoded with a
// PrefixCache is byte for byte the SDK's encoding of the whole params,
// when the tail beyond Stable changes from one request to the next and
// when a request repeats less than the cache took in.
func TestIncrementalEncodingMatchesWholeEncoding(t *testing.T) {
	conv := llmtest.Conversation(200)
	tools := []llm.ToolSpec{
		{Name: "read", Description: "reads <a> file & more", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		{Name: "shell"},
	}
	for _, lag := range []int{0, 2} {
		t.Run(fmt.Sprint("lag=", lag), func(t *testing.T) {
			cache := llm.NewPrefixCache()
			for n := 0; n <= len(conv); n++ {
				msgs := append([]chat.Message(nil), conv[:n]...)
				if n%5 == 0 {
					msgs = append(msgs, chat.Message{Role: chat.Tool, ToolCallID: fmt.Sprint("tentative", n), Content: protocol.Text("error: no result was recorded")})
				}
				stable := max(n-lag, 0)
				if n%37 == 0 {
					stable = n / 2
				}
				req := llm.Request{Model: "gpt-5", Thinking: "high", MaxTokens: 500, Messages: msgs, Tools: tools, Cache: cache, Stable: stable}
				got, err := encodeRequest(req)
				if err != nil {
					t.Fatal(err)
				}
				if n > 40 && n%7 != 0 {
					continue // every request extends the cache; some are compared
				}
				want := referenceEncode(t, req)
				if !bytes.Equal(got.Bytes(), want) {
					t.Fatalf("request of %d messages differs from the whole encoding:\n got %s\nwant %s", n, got.Bytes(), want)
				}
				uncached := req
				uncached.Cache = nil
				if plain, err := encodeRequest(uncached); err != nil || !bytes.Equal(plain.Bytes(), want) {
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
			req := llm.Request{Model: "gpt-5", Messages: conv, Stable: len(conv) - 1}
			if cached {
				req.Cache = llm.NewPrefixCache()
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encodeRequest(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
