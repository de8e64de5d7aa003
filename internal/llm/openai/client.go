package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/openseek/openseek/internal/llm"
)

// DefaultIdleTimeout is how long a stream may stay silent before it fails.
const DefaultIdleTimeout = 90 * time.Second

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

// Client is an llm.Provider for one OpenAI-compatible chat-completions
// endpoint. It is safe for concurrent use.
type Client struct {
	cfg     Config
	api     sdk.Client
	path    string // the request path relative to the SDK's base URL
	idle    time.Duration
	initErr error
}

var _ llm.Provider = (*Client)(nil)

// New returns a client for cfg. A malformed URL is reported by Stream.
func New(cfg Config) *Client {
	c := &Client{cfg: cfg, idle: cfg.IdleTimeout}
	if c.idle <= 0 {
		c.idle = DefaultIdleTimeout
	}
	base, rel, err := splitURL(cfg.URL)
	if err != nil {
		c.initErr = err
		return c
	}
	c.path = rel
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
	// OPENAI_API_KEY, OPENAI_BASE_URL and friends from the environment and
	// send them to other vendors.
	c.api = sdk.Client{Options: opts}
	return c
}

// splitURL turns the full endpoint URL into the SDK's base URL (the
// directory) and a relative reference to the endpoint, query included.
func splitURL(raw string) (base, rel string, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", "", fmt.Errorf("invalid chat-completions URL %q: want a full URL such as https://api.deepseek.com/chat/completions", raw)
	}
	dir, file := path.Split(u.Path)
	if dir == "" {
		dir = "/"
	}
	rel = "./" + file
	if u.RawQuery != "" {
		rel += "?" + u.RawQuery
	}
	b := url.URL{Scheme: u.Scheme, User: u.User, Host: u.Host, Path: dir}
	return b.String(), rel, nil
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
	body, err := encodeRequest(req, mergeExtra(c.thinking(req), c.cfg.ExtraBody))
	if err != nil {
		return nil, &llm.Error{Message: "cannot encode the request: " + err.Error(), Err: err}
	}

	ctx, watch := llm.WatchIdle(ctx, c.idle)
	defer watch.Stop()

	var res *http.Response
	err = c.api.Post(ctx, c.path, body, nil, option.WithResponseInto(&res))
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
	dec := &doneDecoder{Decoder: ssestream.NewDecoder(res)}
	stream := ssestream.NewStream[chunk](dec, nil)
	defer stream.Close()
	var f fold
	for stream.Next() {
		ch := stream.Current()
		f.add(&ch, on)
	}
	if err := stream.Err(); err != nil {
		return nil, c.streamError(watch, err)
	}
	if !dec.done && !f.done() {
		return nil, &llm.Error{Message: "the stream ended before the model finished", Retryable: true, Err: io.ErrUnexpectedEOF}
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
