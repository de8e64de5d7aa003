package responses

import (
	"context"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/openseek/openseek/internal/llm"
)

// DefaultBaseURL is OpenAI's API root.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultIdleTimeout is how long a stream may stay silent before it fails.
const DefaultIdleTimeout = llm.DefaultIdleTimeout

// sdkVersion is the openai-go release whose headers requests carry (its
// user agent and X-Stainless-Package-Version); a test checks it against
// the module in go.mod.
const sdkVersion = "3.98.0"

// Config says where and how to reach a Responses API endpoint.
type Config struct {
	BaseURL     string            // API root; "" = DefaultBaseURL. Requests go to BaseURL + "/responses".
	APIKey      string            // sent as a bearer token
	Headers     map[string]string // extra request headers
	HTTPClient  *http.Client      // nil = http.DefaultClient
	IdleTimeout time.Duration     // no byte for this long → the stream fails, retryably (0 = DefaultIdleTimeout)
}

// Client is an llm.Provider for one Responses API endpoint. It is safe for
// concurrent use.
type Client struct {
	cfg Config
	api *llm.API
}

var _ llm.Provider = (*Client)(nil)

// New returns a client for cfg. A malformed BaseURL is reported by Stream.
func New(cfg Config) *Client {
	u, err := llm.EndpointUnder(cfg.BaseURL, DefaultBaseURL, "responses", "Responses API")
	// The SDK's header, not its environment: OPENAI_API_KEY,
	// OPENAI_BASE_URL and friends are not read here.
	return &Client{cfg: cfg, api: llm.NewAPI(llm.APIConfig{
		URL: u, URLErr: err, Header: llm.SDKHeader("OpenAI", sdkVersion),
		Key: cfg.APIKey, Headers: cfg.Headers, HTTPClient: cfg.HTTPClient, Idle: cfg.IdleTimeout,
	}, vendor)}
}

// Stream sends req and streams the reply. Errors are *llm.Error except a
// cancelled ctx, which is returned wrapped as is.
func (c *Client) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	var f *fold
	err := c.api.Stream(ctx, func() (llm.Body, error) { return encodeRequest(req) }, on,
		func(res *http.Response, on func(llm.Delta)) error {
			var err error
			f, err = consume(res, on)
			switch {
			case err != nil:
				return streamError(err)
			case !f.finished:
				return llm.Unfinished()
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	return f.response(), nil
}

// consume reads the event stream of res into a fold until the response
// finishes, fails or the stream ends, and closes the body.
func consume(res *http.Response, on func(llm.Delta)) (*fold, error) {
	stream := ssestream.NewStream[streamEvent](ssestream.NewDecoder(res), nil)
	defer stream.Close()
	f := &fold{}
	for stream.Next() {
		ev := stream.Current()
		if err := f.add(&ev, on); err != nil {
			return f, err
		}
		if f.finished {
			return f, nil
		}
	}
	return f, stream.Err()
}
