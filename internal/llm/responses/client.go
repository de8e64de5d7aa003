package responses

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/openseek/openseek/internal/llm"
)

// DefaultBaseURL is OpenAI's API root.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultIdleTimeout is how long a stream may stay silent before it fails.
const DefaultIdleTimeout = 90 * time.Second

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
	cfg     Config
	api     *llm.Endpoint
	idle    time.Duration
	initErr error
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
	u, err := url.Parse(base)
	if err == nil && u.Path != "" && !strings.HasSuffix(u.Path, "/") {
		u.Path += "/" // a directory, as the SDK resolves its base URL
	}
	if err == nil {
		u, err = u.Parse("responses")
	}
	if err != nil {
		c.initErr = fmt.Errorf("invalid Responses API base URL %q: want a URL such as %s", base, DefaultBaseURL)
		return c
	}
	// The SDK's header, not its environment: OPENAI_API_KEY,
	// OPENAI_BASE_URL and friends are not read here.
	h := llm.SDKHeader("OpenAI", sdkVersion)
	if cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	c.api = llm.NewEndpoint(u, h, cfg.HTTPClient)
	return c
}

// Stream sends req and streams the reply. Errors are *llm.Error except a
// cancelled ctx, which is returned wrapped as is.
func (c *Client) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	if c.initErr != nil {
		return nil, &llm.Error{Message: c.initErr.Error(), Err: c.initErr}
	}
	if on == nil {
		on = func(llm.Delta) {}
	}
	body, err := encodeRequest(req)
	if err != nil {
		return nil, &llm.Error{Message: "cannot encode the request: " + err.Error(), Err: err}
	}

	ctx, watch := llm.WatchIdle(ctx, c.idle)
	defer watch.Stop()

	res, err := c.api.Post(ctx, body)
	if err != nil {
		return nil, watch.TransportError(err, c.cfg.APIKey)
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		return nil, c.statusError(res)
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
