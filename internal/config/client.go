package config

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/anthropic"
	"github.com/openseek/openseek/internal/llm/openai"
	"github.com/openseek/openseek/internal/llm/responses"
)

// endpoint is what a client constructor needs to reach one provider.
type endpoint struct {
	API        string
	BaseURL    string // the provider's base URL
	ChatURL    string // a full chat-completions URL that replaces BaseURL (--api-url), "" = none
	Key        string
	Headers    map[string]string
	ExtraBody  map[string]any
	Thinking   func(mode string) map[string]any
	HTTPClient *http.Client
}

// newClient is the constructor table keyed by API kind: adding an API is
// one case here.
func newClient(e endpoint) (llm.Provider, error) {
	switch e.API {
	case APIOpenAI:
		url := e.ChatURL
		if url == "" {
			url = strings.TrimRight(e.BaseURL, "/") + "/chat/completions"
		}
		return openai.New(openai.Config{URL: url, APIKey: e.Key, Headers: e.Headers,
			ExtraBody: e.ExtraBody, HTTPClient: e.HTTPClient, Thinking: e.Thinking}), nil
	case APIAnthropic:
		return anthropic.New(anthropic.Config{BaseURL: e.BaseURL, APIKey: e.Key, Headers: e.Headers,
			HTTPClient: e.HTTPClient}), nil
	case APIResponses:
		return responses.New(responses.Config{BaseURL: e.BaseURL, APIKey: e.Key, Headers: e.Headers,
			HTTPClient: e.HTTPClient}), nil
	}
	return nil, fmt.Errorf("unknown API kind %q; use %q, %q or %q", e.API, APIOpenAI, APIAnthropic, APIResponses)
}
