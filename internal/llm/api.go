package llm

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
)

// DefaultIdleTimeout is how long a model's event stream may stay silent
// before the call fails, retryably. The vendors send keep-alive pings
// during long thinking, so silence this long means trouble.
const DefaultIdleTimeout = 90 * time.Second

// API is the half of a model adapter that is the same for every vendor:
// posting an encoded request to one endpoint, the idle watch on its event
// stream, and turning whatever went wrong into an *Error whose message
// never contains the key: a transport failure, an HTTP error status, a
// document where an event stream was expected, a stream that broke or
// ended early. An adapter adds only its wire format (the endpoint, its
// header, encoding the request, reading its events) and the meaning of its
// vendor's error events. Build one per client; it is safe for concurrent
// use.
type API struct {
	endpoint *Endpoint
	key      string
	idle     time.Duration
	vendor   Vendor
	initErr  error
}

// Vendor is what differs between the adapters in how they reach and read
// an API.
type Vendor struct {
	// KeyHeader carries the key (with KeyPrefix before it): "Authorization"
	// with "Bearer ", or "X-Api-Key". No header is sent for an empty key.
	KeyHeader, KeyPrefix string
	// Wording words an HTTP error status.
	Wording StatusWording
	// ErrorMessage reads the message of an error body; nil = ErrorMessage.
	ErrorMessage func([]byte) string
	// EventStreamOnly refuses a 200 of any media type but an event stream
	// (a proxy's login page); otherwise only a JSON document is refused,
	// so local servers that label their stream loosely still work.
	EventStreamOnly bool
	// What names one unit of the stream in a malformed-stream message:
	// "chunk", "event".
	What string
}

// APIConfig is one adapter's endpoint.
type APIConfig struct {
	URL        *url.URL          // where requests go
	URLErr     error             // why URL could not be built; reported by every Stream
	Header     http.Header       // the vendor SDK's header (SDKHeader) plus the vendor's own
	Key        string            // the API key, sent as Vendor.KeyHeader; redacted from errors
	Headers    map[string]string // the user's extra headers, set last
	HTTPClient *http.Client      // nil = http.DefaultClient
	Idle       time.Duration     // 0 = DefaultIdleTimeout
}

// NewAPI returns the shared client for one adapter's endpoint.
func NewAPI(cfg APIConfig, v Vendor) *API {
	a := &API{key: cfg.Key, idle: cfg.Idle, vendor: v, initErr: cfg.URLErr}
	if a.idle <= 0 {
		a.idle = DefaultIdleTimeout
	}
	if a.vendor.ErrorMessage == nil {
		a.vendor.ErrorMessage = ErrorMessage
	}
	if a.initErr != nil {
		return a
	}
	h := cfg.Header.Clone()
	if cfg.Key != "" {
		h.Set(v.KeyHeader, v.KeyPrefix+cfg.Key)
	}
	for k, val := range cfg.Headers {
		h.Set(k, val)
	}
	a.endpoint = NewEndpoint(cfg.URL, h, cfg.HTTPClient)
	return a
}

// Stream makes one model call: it encodes the request, posts it, and hands
// the event stream to read with on (never nil). Every error it returns is
// an *Error with the key redacted, except a cancelled ctx, which is
// returned wrapped as is. read returns an *Error for what the vendor's
// events said (EventError, Unfinished) and any other error for a stream
// it could not read, which Stream classifies (BrokenStream, or the call's
// own interruption).
func (a *API) Stream(ctx context.Context, encode func() (Body, error), on func(Delta), read func(*http.Response, func(Delta)) error) error {
	if a.initErr != nil {
		return &Error{Message: a.initErr.Error(), Err: a.initErr}
	}
	if on == nil {
		on = func(Delta) {}
	}
	body, err := encode()
	if err != nil {
		return &Error{Message: "cannot encode the request: " + err.Error(), Err: err}
	}

	ctx, watch := WatchIdle(ctx, a.idle)
	finished := false // the body and the watch were handed to finish
	defer func() {
		if !finished {
			watch.Stop()
		}
	}()

	res, err := a.endpoint.Post(ctx, body)
	if err != nil {
		return watch.TransportError(err, a.key)
	}
	if res.StatusCode >= 400 {
		return HTTPError(res, a.key, a.vendor.ErrorMessage, a.vendor.Wording)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "application/json" || a.vendor.EventStreamOnly && mt != "" && mt != "text/event-stream" {
		return a.notStreamed(res, mt)
	}

	stream := watch.Body(res.Body)
	// The adapters' stream readers close what they read when they stop;
	// the body stays open for finish.
	res.Body = io.NopCloser(stream)
	err = read(res, on)
	if err == nil {
		finished = true
		go finish(stream, watch, finishWait)
		return nil
	}
	_ = stream.Close()
	if ierr := watch.Interrupted(); ierr != nil {
		return ierr
	}
	var e *Error
	if errors.As(err, &e) {
		e.Message = Redact(e.Message, a.key)
		return e
	}
	return BrokenStream(err, a.vendor.What, a.key)
}

// finishLimit and finishWait bound what finish reads after a stream's
// end marker: a well-behaved server sends a few bytes at once.
const finishLimit = 64 << 10

var finishWait = 2 * time.Second // a variable for tests

// finish reads the rest of a stream whose end marker ([DONE],
// message_stop, response.completed) was read, up to the body's end, then
// closes it and stops the call's watch. The body's end (the chunked
// terminator) usually arrives just after the marker; a body closed before
// it closes its HTTP/1.1 connection too, and the next call, a moment
// later, pays a new TCP and TLS handshake with the server. It runs in
// the background so that the turn never waits for it, and gives up after
// wait (finishWait) or finishLimit bytes (the connection is then closed,
// as before).
func finish(body io.ReadCloser, watch *IdleWatch, wait time.Duration) {
	giveUp := time.AfterFunc(wait, watch.Stop)
	_, _ = io.CopyN(io.Discard, body, finishLimit)
	giveUp.Stop()
	_ = body.Close()
	watch.Stop()
}

// notStreamed is the *Error for a 200 answered with a document of media
// type mt instead of an event stream: usually a gateway's error object or
// a proxy's page. It closes the body.
func (a *API) notStreamed(res *http.Response, mt string) *Error {
	defer res.Body.Close()
	msg := Redact(a.vendor.ErrorMessage(ReadErrorBody(res.Body)), a.key)
	what := "the server answered with " + mt + " instead of an event stream"
	switch {
	case msg == "":
		msg = what
	case mt != "application/json":
		msg = what + ": " + msg
	}
	return &Error{Status: res.StatusCode, Message: msg}
}

// EventError is the *Error for an error the vendor reported inside a
// stream that had already said 200: status is the HTTP status its error
// stands for (0 when unknown); msg is its message. Rate limits, server
// errors and errors of unknown kind may pass on a new attempt.
func EventError(status int, msg string, err error) *Error {
	return &Error{
		Status:    status,
		Message:   "the model API reported an error mid-stream: " + msg,
		Retryable: status == 0 || status == http.StatusTooManyRequests || status >= 500,
		Err:       err,
	}
}

// Unfinished is the *Error for an event stream that ended before the
// model finished its response: a dropped connection, worth a new attempt
// (WithRetry makes one only if nothing had been streamed yet).
func Unfinished() *Error {
	return &Error{Message: "the stream ended before the model finished", Retryable: true, Err: io.ErrUnexpectedEOF}
}

// EndpointUnder resolves rel under base, an API root whose path is a
// directory (as the vendors' SDKs resolve their base URL); an empty base
// is def. what names the API in the error for a malformed base.
func EndpointUnder(base, def, rel, what string) (*url.URL, error) {
	if base == "" {
		base = def
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("invalid %s base URL %q: want a URL such as %s", what, base, def)
	}
	if u.Path != "" && !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	if u, err = u.Parse(rel); err != nil {
		return nil, fmt.Errorf("invalid %s base URL %q: %w", what, base, err)
	}
	return u, nil
}
