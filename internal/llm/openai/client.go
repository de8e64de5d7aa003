package openai

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/openseek/openseek/internal/llm"
)

// DefaultIdleTimeout is how long a stream may stay silent before it fails.
const DefaultIdleTimeout = llm.DefaultIdleTimeout

// Config says where and how to reach one OpenAI-compatible endpoint.
type Config struct {
	URL         string            // FULL chat-completions URL, e.g. https://api.deepseek.com/chat/completions
	APIKey      string            // sent as a bearer token; may be empty (local servers)
	Headers     map[string]string // extra request headers
	ExtraBody   map[string]any    // merged into every request body (vendor knobs); wins over Thinking
	HTTPClient  *http.Client      // nil = http.DefaultClient
	IdleTimeout time.Duration     // no byte for this long → the stream fails, retryably (0 = DefaultIdleTimeout)
	// Thinking maps llm.Request.Thinking to body fields. nil = the
	// catalogue entry of the request's model (llm.LookupModel), else
	// llm.GenericThinking.
	Thinking func(mode string) map[string]any
}

// sdkVersion is the openai-go release whose headers requests carry (its
// user agent and X-Stainless-Package-Version); a test checks it against
// the module in go.mod.
const sdkVersion = "3.98.0"

// Client is an llm.Provider for one OpenAI-compatible chat-completions
// endpoint. It is safe for concurrent use.
type Client struct {
	cfg Config
	api *llm.API
}

var _ llm.Provider = (*Client)(nil)

// vendor is how this adapter reaches and reads its API.
var vendor = llm.Vendor{
	KeyHeader: "Authorization", KeyPrefix: "Bearer ",
	Wording: llm.StatusWording{KeyHint: "--api-key or its environment variable"},
	What:    "chunk",
}

// New returns a client for cfg. A malformed URL is reported by Stream.
func New(cfg Config) *Client {
	u, err := endpointURL(cfg.URL)
	// The SDK's header, not its environment: OPENAI_API_KEY,
	// OPENAI_BASE_URL and friends must not reach other vendors.
	return &Client{cfg: cfg, api: llm.NewAPI(llm.APIConfig{
		URL: u, URLErr: err, Header: llm.SDKHeader("OpenAI", sdkVersion),
		Key: cfg.APIKey, Headers: cfg.Headers, HTTPClient: cfg.HTTPClient, Idle: cfg.IdleTimeout,
	}, vendor)}
}

// endpointURL checks the full endpoint URL and returns it as requests are
// sent to it: without a fragment, its path resolved as a relative
// reference against its directory (as the SDK resolved it against its
// base URL).
func endpointURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("invalid chat-completions URL %q: want a full URL such as https://api.deepseek.com/chat/completions", raw)
	}
	dir, file := path.Split(u.Path)
	if dir == "" {
		dir = "/"
	}
	rel := "./" + file
	if u.RawQuery != "" {
		rel += "?" + u.RawQuery
	}
	base := &url.URL{Scheme: u.Scheme, User: u.User, Host: u.Host, Path: dir}
	return base.Parse(rel)
}

// Stream sends req and streams the reply. Errors are *llm.Error except a
// cancelled ctx, which is returned wrapped as is.
func (c *Client) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	var f fold
	err := c.api.Stream(ctx, func() (llm.Body, error) {
		return encodeRequest(req, mergeExtra(c.thinking(req), c.cfg.ExtraBody))
	}, on, func(res *http.Response, on func(llm.Delta)) error {
		dec := &doneDecoder{Decoder: ssestream.NewDecoder(res)}
		stream := ssestream.NewStream[chunk](dec, nil)
		defer stream.Close()
		for stream.Next() {
			ch := stream.Current()
			f.add(&ch, on)
		}
		if err := stream.Err(); err != nil {
			return eventError(err)
		}
		if !dec.done && !f.done() {
			return llm.Unfinished()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f.response(), nil
}

func (c *Client) thinking(req llm.Request) map[string]any {
	if req.Thinking == "" {
		return nil
	}
	if c.cfg.Thinking != nil {
		return c.cfg.Thinking(req.Thinking)
	}
	if m, ok := llm.LookupModel(req.Model); ok && m.Thinking != nil {
		return m.Thinking(req.Thinking)
	}
	return llm.GenericThinking(req.Thinking)
}

// doneDecoder notes whether the stream reached its [DONE] sentinel, which
// the SDK's Stream consumes silently.
type doneDecoder struct {
	ssestream.Decoder
	done bool
}

func (d *doneDecoder) Next() bool {
	ok := d.Decoder.Next()
	if ok && bytes.HasPrefix(d.Event().Data, []byte("[DONE]")) {
		d.done = true
	}
	return ok
}
