package responses_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/openseek/openseek/internal/llm/responses"
)

// sent is what a server saw of one request.
type sent struct {
	method, uri string
	header      http.Header
	body        string
}

// capture serves one canned error reply and records every request.
func capture(t *testing.T) (*httptest.Server, *[]sent) {
	t.Helper()
	var got []sent
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, sent{r.Method, r.RequestURI, r.Header.Clone(), string(b)})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"captured","type":"invalid_request_error"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

// TestRequestMatchesSDK: the client posts what openai-go's client posted
// when it sent our body (the way this package used it before it built the
// request itself): the same method, URL, body and header, user agent and
// platform headers included. It fails when the SDK is upgraded and sends
// something else.
func TestRequestMatchesSDK(t *testing.T) {
	tests := []struct {
		name    string
		path    string // of the base URL
		key     string
		headers map[string]string
	}{
		{"key", "/v1", "sk-test", nil},
		{"no key, trailing slash", "/openai/v1/", "", nil},
		{"headers override", "", "sk-test", map[string]string{"OpenAI-Beta": "responses=v1", "authorization": "Bearer other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, got := capture(t)
			c := responses.New(responses.Config{BaseURL: srv.URL + tt.path, APIKey: tt.key, Headers: tt.headers})
			if _, err := c.Stream(context.Background(), hi, nil); err == nil || !strings.Contains(err.Error(), "captured") {
				t.Fatalf("Stream: %v, want the captured 400", err)
			}
			opts := []option.RequestOption{
				option.WithBaseURL(srv.URL + tt.path),
				option.WithHTTPClient(http.DefaultClient),
				option.WithMaxRetries(0),
				option.WithHeader("Accept", "text/event-stream"),
			}
			if tt.key != "" {
				opts = append(opts, option.WithAPIKey(tt.key))
			}
			for k, v := range tt.headers {
				opts = append(opts, option.WithHeader(k, v))
			}
			api := sdk.Client{Options: opts}
			var res *http.Response
			_ = api.Post(context.Background(), "responses", []byte((*got)[0].body), nil, option.WithResponseInto(&res))
			if len(*got) != 2 {
				t.Fatalf("%d requests, want 2", len(*got))
			}
			ours, theirs := (*got)[0], (*got)[1]
			if ours.method != theirs.method || ours.uri != theirs.uri || ours.body != theirs.body {
				t.Errorf("ours %s %s %q, the SDK's %s %s %q", ours.method, ours.uri, ours.body, theirs.method, theirs.uri, theirs.body)
			}
			if !reflect.DeepEqual(ours.header, theirs.header) {
				t.Errorf("header\nours      %v\nthe SDK's %v", ours.header, theirs.header)
			}
		})
	}
}
