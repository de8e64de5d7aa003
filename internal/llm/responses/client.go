package responses

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/openseek/openseek/internal/llm"
)

// DefaultBaseURL is OpenAI's API root.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultIdleTimeout is how long a stream may stay silent before it fails.
const DefaultIdleTimeout = 90 * time.Second

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
	cfg  Config
	api  sdk.Client
	idle time.Duration
}

var _ llm.Provider = (*Client)(nil)

// New returns a client for cfg.
func New(cfg Config) *Client {
	c := &Client{cfg: cfg, idle: cfg.IdleTimeout}
	if c.idle <= 0 {
		c.idle = DefaultIdleTimeout
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // llm.WithRetry owns retrying
		option.WithHeader("Accept", "text/event-stream"),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	// A literal Client, not sdk.NewClient: the latter would pick up
	// OPENAI_API_KEY, OPENAI_BASE_URL and friends from the environment.
	c.api = sdk.Client{Options: opts}
	return c
}

// Stream sends req and streams the reply. Errors are *llm.Error except a
// cancelled ctx, which is returned wrapped as is.
func (c *Client) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	if on == nil {
		on = func(llm.Delta) {}
	}
	body, err := encodeRequest(req)
	if err != nil {
		return nil, &llm.Error{Message: "cannot encode the request: " + err.Error(), Err: err}
	}

	ctx, watch := llm.WatchIdle(ctx, c.idle)
	defer watch.Stop()

	var res *http.Response
	err = c.api.Post(ctx, "responses", body, nil, option.WithResponseInto(&res))
	if res != nil && res.StatusCode >= 400 {
		return nil, c.statusError(res)
	}
	if err != nil {
		return nil, watch.TransportError(err, c.cfg.APIKey)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "application/json" {
		defer res.Body.Close()
		return nil, c.notStreamed(res)
	}

	res.Body = watch.Body(res.Body)
	f, err := consume(res, on)
	var ef *eventFailure
	switch {
	case errors.As(err, &ef):
		return nil, c.eventError(err)
	case err != nil:
		return nil, c.streamError(watch, err)
	case !f.finished:
		return nil, &llm.Error{Message: "the stream ended before the model finished", Retryable: true, Err: io.ErrUnexpectedEOF}
	}
	return f.response(), nil
}

// consume reads the event stream of res into a fold until the response
// finishes, fails or the stream ends, and closes the body.
func consume(res *http.Response, on func(llm.Delta)) (*fold, error) {
	stream := ssestream.NewStream[responses.ResponseStreamEventUnion](ssestream.NewDecoder(res), nil)
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
