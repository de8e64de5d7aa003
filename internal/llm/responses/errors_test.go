package responses_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/responses"
	"github.com/openseek/openseek/protocol"
)

const secretKey = "sk-test-secret-1234"

var hi = llm.Request{Model: "gpt-5", Messages: []chat.Message{{Role: chat.User, Content: protocol.Text("hi")}}}

// event renders one SSE event of the flat Responses shape.
func event(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

func TestErrors(t *testing.T) {
	created := event("response.created", `{"type":"response.created","response":{"id":"r","model":"gpt-5","status":"in_progress","output":[]}}`)
	textDelta := event("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"Hel"}`)
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		wantStatus int
		retryable  bool
		retryAfter time.Duration
		contains   []string
	}{{
		name: "401 says the key was refused, never prints it", status: 401,
		body:       `{"error":{"message":"Incorrect API key provided: ` + secretKey + `","type":"invalid_request_error","code":"invalid_api_key"}}`,
		wantStatus: 401, contains: []string{"API key was refused", "Incorrect API key provided: [redacted]"},
	}, {
		name: "429 with Retry-After", status: 429, header: map[string]string{"Retry-After": "7"},
		body:       `{"error":{"message":"Rate limit reached for gpt-5","type":"requests","code":"rate_limit_exceeded"}}`,
		wantStatus: 429, retryable: true, retryAfter: 7 * time.Second, contains: []string{"rate limited", "Rate limit reached"},
	}, {
		name: "429 with retry-after-ms", status: 429, header: map[string]string{"Retry-After-Ms": "1500"},
		wantStatus: 429, retryable: true, retryAfter: 1500 * time.Millisecond, contains: []string{"rate limited"},
	}, {
		name: "500 is retryable", status: 500, body: `{"error":{"message":"The server had an error"}}`,
		wantStatus: 500, retryable: true, contains: []string{"The server had an error"},
	}, {
		name: "400 is not", status: 400, body: `{"error":{"message":"Invalid type for 'input'","param":"input"}}`,
		wantStatus: 400, contains: []string{"Invalid type for 'input'"},
	}, {
		name: "an HTML error page becomes its title", status: 502, header: map[string]string{"Content-Type": "text/html"},
		body:       "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>",
		wantStatus: 502, retryable: true, contains: []string{"502 Bad Gateway"},
	}, {
		name: "JSON instead of a stream", status: 200, header: map[string]string{"Content-Type": "application/json"},
		body: `{"error":{"message":"streaming is disabled for this key"}}`, wantStatus: 200, contains: []string{"streaming is disabled"},
	}, {
		name: "a stream cut before response.completed", status: 200,
		body: created + textDelta, retryable: true, contains: []string{"ended before the model finished"},
	}, {
		name: "an error event (flat)", status: 200,
		body:      created + event("error", `{"type":"error","code":"server_error","message":"The server had an error while processing your request.","param":null,"sequence_number":2}`),
		retryable: true, contains: []string{"server_error", "while processing your request"},
	}, {
		name: "an error event (nested) for a rate limit", status: 200,
		body:       created + event("error", `{"type":"error","error":{"type":"tokens","code":"rate_limit_exceeded","message":"Rate limit reached"},"sequence_number":2}`),
		wantStatus: 429, retryable: true, contains: []string{"Rate limit reached"},
	}, {
		name: "response.failed with a rejected prompt is final", status: 200,
		body:     created + event("response.failed", `{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"invalid_prompt","message":"Invalid prompt: flagged"},"output":[]}}`),
		contains: []string{"invalid_prompt", "flagged"},
	}, {
		name: "response.failed with a server error is retryable", status: 200,
		body:      created + event("response.failed", `{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"oops"},"output":[]}}`),
		retryable: true, contains: []string{"server_error: oops"},
	}, {
		name: "a malformed event", status: 200, body: created + "event: response.output_text.delta\ndata: {\"type\":\n\n",
		contains: []string{"malformed event"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c := responses.New(responses.Config{BaseURL: srv.URL, APIKey: secretKey})
			resp, err := c.Stream(context.Background(), hi, nil)
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("got %v, %v; want *llm.Error", resp, err)
			}
			if le.Status != tc.wantStatus || le.Retryable != tc.retryable || le.RetryAfter != tc.retryAfter || llm.IsRetryable(err) != tc.retryable {
				t.Errorf("status %d retryable %v after %v; want %d %v %v (%v)", le.Status, le.Retryable, le.RetryAfter, tc.wantStatus, tc.retryable, tc.retryAfter, err)
			}
			for _, s := range tc.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			if strings.Contains(err.Error(), secretKey) {
				t.Errorf("error prints the API key: %v", err)
			}
		})
	}
}

func TestIncompleteResponse(t *testing.T) {
	body := event("response.created", `{"type":"response.created","response":{"id":"r","model":"gpt-5","output":[]}}`) +
		event("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"m","output_index":0,"delta":"Once upon"}`) +
		event("response.incomplete", `{"type":"response.incomplete","response":{"id":"r","model":"gpt-5","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[],"usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":4},"output_tokens":16,"total_tokens":28}}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	resp, err := responses.New(responses.Config{BaseURL: srv.URL}).Stream(context.Background(), hi, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := protocol.Usage{PromptTokens: 12, CompletionTokens: 16, TotalTokens: 28, PromptCacheHitTokens: 4, PromptCacheMissTokens: 8}
	if resp.Content != "Once upon" || resp.FinishReason != "length" || resp.Usage != want {
		t.Errorf("got %q %q %+v", resp.Content, resp.FinishReason, resp.Usage)
	}
}
