package responses

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm"
)

// FuzzConsume feeds arbitrary bytes to the stream decoder and fold: they
// must never panic, and whatever is returned must agree with what was
// streamed.
func FuzzConsume(f *testing.F) {
	f.Add([]byte("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"hi\"}\n\n" +
		"data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":3,\"input_tokens_details\":{\"cached_tokens\":9},\"output_tokens\":1}}}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"n\"}}\n\n" +
		"data: {\"type\":\"response.function_call_arguments.delta\",\"output_index\":1,\"delta\":\"{}\"}\n\n" +
		"data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"reasoning\",\"id\":\"rs\",\"encrypted_content\":\"e\",\"summary\":null}}\n\n" +
		"data: {\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":\"rs\",\"summary_index\":1,\"delta\":\"x\"}\n\n" +
		"data: {\"type\":\"response.incomplete\",\"response\":{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n"))
	f.Add([]byte("data: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"x\"}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"c\",\"message\":\"m\"}}}\n\n: comment\ndata: [DONE]\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(body))}
		var text, reasoning strings.Builder
		fl, err := consume(res, func(d llm.Delta) {
			switch d.Kind {
			case llm.TextDelta:
				text.WriteString(d.Text)
			case llm.ReasoningDelta:
				reasoning.WriteString(d.Text)
			}
		})
		if err != nil || !fl.finished {
			return
		}
		r := fl.response()
		if r.Content != text.String() {
			t.Errorf("content %q, streamed %q", r.Content, text.String())
		}
		if got := ""; r.Reasoning != nil {
			got = *r.Reasoning
			if got != reasoning.String() {
				t.Errorf("reasoning %q, streamed %q", got, reasoning.String())
			}
		} else if reasoning.Len() > 0 {
			t.Errorf("reasoning streamed but not returned")
		}
		if r.Usage.PromptCacheMissTokens < 0 {
			t.Errorf("usage %+v", r.Usage)
		}
		if r.ReasoningItems != nil {
			var items []map[string]any
			if json.Unmarshal(r.ReasoningItems, &items) != nil {
				t.Fatalf("reasoning items are not a JSON array: %s", r.ReasoningItems)
			}
			for _, it := range items {
				if _, ok := it["encrypted_content"].(string); !ok || it["type"] != "reasoning" || it["id"] == "" {
					t.Errorf("unreplayable reasoning item %v", it)
				}
			}
		}
	})
}
