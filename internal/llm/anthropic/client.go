package anthropic

import (
	"context"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/openseek/openseek/internal/llm"
)

const (
	// DefaultBaseURL is Anthropic's API.
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultIdleTimeout is how long a stream may stay silent before it
	// fails. Anthropic pings during long thinking, so silence means trouble.
	DefaultIdleTimeout = llm.DefaultIdleTimeout
	// messagesPath is the Messages endpoint relative to the base URL.
	messagesPath = "v1/messages"
	// sdkVersion is the anthropic-sdk-go release whose headers requests
	// carry (its user agent and X-Stainless-Package-Version), and
	// apiVersion the anthropic-version it sends; a test checks both
	// against the module in go.mod.
	sdkVersion = "2.15.0"
	apiVersion = "2026-10-21"
)

// Config says where and how to reach the Messages API.
type Config struct {
	BaseURL     string            // "" = DefaultBaseURL; /v1/messages is appended
	APIKey      string            // sent as x-api-key; never printed
	Headers     map[string]string // extra request headers (anthropic-beta, gateways)
	HTTPClient  *http.Client      // nil = http.DefaultClient
	IdleTimeout time.Duration     // no byte for this long → the stream fails, retryably (0 = DefaultIdleTimeout)
	MaxTokens   int               // max_tokens when the request sets none (0 = DefaultMaxTokens)
	// ThinkingBudget maps llm.Request.Thinking to budget_tokens: <0 sends
	// no thinking field, 0 disables thinking, >0 enables it with that
	// budget. nil = DefaultThinkingBudget.
	ThinkingBudget func(mode string) int
}

// Client is an llm.Provider for the Anthropic Messages API. It is safe for
// concurrent use.
type Client struct {
	cfg Config
	api *llm.API
}

var _ llm.Provider = (*Client)(nil)

// New returns a client for cfg. A malformed BaseURL is reported by Stream.
func New(cfg Config) *Client {
	u, err := llm.EndpointUnder(cfg.BaseURL, DefaultBaseURL, messagesPath, "Anthropic")
	// The SDK's header, not its environment: the caller resolves keys and
	// endpoints itself (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and profiles
	// are not read here).
	h := llm.SDKHeader("Anthropic", sdkVersion)
	h.Set("Anthropic-Version", apiVersion)
	return &Client{cfg: cfg, api: llm.NewAPI(llm.APIConfig{
		URL: u, URLErr: err, Header: h,
		Key: cfg.APIKey, Headers: cfg.Headers, HTTPClient: cfg.HTTPClient, Idle: cfg.IdleTimeout,
	}, vendor)}
}

// Stream sends req and streams the reply. Errors are *llm.Error except a
// cancelled ctx, which is returned wrapped as is.
func (c *Client) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	var f fold
	err := c.api.Stream(ctx, func() (llm.Body, error) {
		return encodeRequest(req, c.maxTokens(req), c.budget(req.Thinking))
	}, on, func(res *http.Response, on func(llm.Delta)) error {
		dec := &errorDecoder{Decoder: ssestream.NewDecoder(res)}
		stream := ssestream.NewStream[event](dec, nil)
		defer stream.Close()
		for stream.Next() {
			ev := stream.Current()
			f.add(&ev, on)
			if f.stopped {
				break // message_stop is the last event; do not wait for EOF
			}
		}
		if err := stream.Err(); err != nil {
			return eventError(err, dec.errData)
		}
		if !f.done() {
			return llm.Unfinished()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f.response(), nil
}

func (c *Client) maxTokens(req llm.Request) int {
	switch {
	case req.MaxTokens > 0:
		return req.MaxTokens
	case c.cfg.MaxTokens > 0:
		return c.cfg.MaxTokens
	}
	return DefaultMaxTokens
}

func (c *Client) budget(mode string) int {
	if c.cfg.ThinkingBudget != nil {
		return c.cfg.ThinkingBudget(mode)
	}
	return DefaultThinkingBudget(mode)
}

// errorDecoder keeps the data of an error event, which the SDK's Stream
// turns into an error that no longer says which API error it was.
type errorDecoder struct {
	ssestream.Decoder
	errData []byte
}

func (d *errorDecoder) Next() bool {
	ok := d.Decoder.Next()
	if ok && d.Event().Type == "error" {
		d.errData = append([]byte(nil), d.Event().Data...)
	}
	return ok
}
