package responses

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/openseek/openseek/internal/llm"
)

// maxErrorBody bounds how much of an error page is read.
const maxErrorBody = 64 << 10

// statusError turns an HTTP error response into an *llm.Error.
func (c *Client) statusError(res *http.Response) error {
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	msg := c.redact(errorMessage(body))
	e := &llm.Error{Status: res.StatusCode, RetryAfter: retryAfter(res.Header, time.Now())}
	switch code := res.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		e.Message = "the API key was refused; check the key for this model (--api-key or its environment variable)"
		if msg != "" {
			e.Message += ": " + msg
		}
	case code == http.StatusTooManyRequests:
		e.Message = "rate limited"
		if msg != "" {
			e.Message += ": " + msg
		}
		e.Retryable = true
	default:
		e.Message = msg
		if e.Message == "" {
			e.Message = http.StatusText(code)
		}
		e.Retryable = code >= 500 || code == http.StatusRequestTimeout || code == http.StatusConflict
	}
	e.Err = errors.New(http.StatusText(res.StatusCode))
	return e
}

// notStreamed handles a 200 answered with a JSON document instead of an
// event stream: usually an error object from a gateway.
func (c *Client) notStreamed(res *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	msg := c.redact(errorMessage(body))
	if msg == "" {
		msg = "the server answered with JSON instead of an event stream"
	}
	return &llm.Error{Status: res.StatusCode, Message: msg}
}

// transportError classifies a failure to get a response at all.
func (c *Client) transportError(parent, ctx context.Context, err error) error {
	if perr := parent.Err(); perr != nil {
		return fmt.Errorf("model call: %w", perr)
	}
	if errors.Is(context.Cause(ctx), errIdle) {
		return c.idleError()
	}
	return &llm.Error{Message: "cannot reach the model API: " + c.redact(err.Error()), Retryable: true, Err: err}
}

// streamError classifies a failure while reading the stream.
func (c *Client) streamError(parent, ctx context.Context, err error) error {
	if perr := parent.Err(); perr != nil {
		return fmt.Errorf("model call: %w", perr)
	}
	if errors.Is(context.Cause(ctx), errIdle) {
		return c.idleError()
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return &llm.Error{Message: "the model API sent a malformed event: " + err.Error(), Err: err}
	}
	// The SDK turns any event with a top-level "error" key into a
	// StreamError (error events in the {"error":{...}} shape, or a
	// gateway's); the flat {"type":"error","code"} shape reaches the fold.
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		code, msg := eventErrorFields(se.Event.Data)
		return c.eventError(&eventFailure{code: code, message: msg})
	}
	return &llm.Error{Message: "the stream broke: " + c.redact(err.Error()), Retryable: true, Err: err}
}

// eventError classifies an error event or a failed response. Server errors
// and rate limits may pass on a new attempt; a rejected prompt will not.
func (c *Client) eventError(err error) error {
	var ef *eventFailure
	if !errors.As(err, &ef) {
		return &llm.Error{Message: c.redact(err.Error()), Err: err}
	}
	e := &llm.Error{Message: "the model API reported an error mid-stream: " + c.redact(ef.Error()), Err: err}
	switch {
	case strings.Contains(ef.code, "rate_limit"):
		e.Status, e.Retryable = http.StatusTooManyRequests, true
	case ef.code == "" || ef.code == "server_error" || strings.Contains(ef.code, "timeout"):
		e.Retryable = true
	default:
		if n, err := strconv.Atoi(ef.code); err == nil && n >= 400 && n <= 599 {
			e.Status, e.Retryable = n, n == http.StatusTooManyRequests || n >= 500
		}
	}
	return e
}

func (c *Client) idleError() error {
	return &llm.Error{
		Message:   fmt.Sprintf("no data from the model API for %s", c.idle),
		Retryable: true,
		Err:       errIdle,
	}
}

// redact removes the API key from text that came from elsewhere.
func (c *Client) redact(s string) string {
	if k := c.cfg.APIKey; len(k) >= 4 {
		s = strings.ReplaceAll(s, k, "[redacted]")
	}
	return s
}

var (
	titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// errorMessage extracts a readable message from an error body: the
// OpenAI-style {"error":{"message"}} or {"error":"..."} or {"message"},
// else the page's title or its text, shortened.
func errorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &doc) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(doc.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(doc.Error, &s) == nil && s != "":
			return s
		case doc.Message != "":
			return doc.Message
		case doc.Detail != "":
			return doc.Detail
		}
		return shorten(string(body))
	}
	if m := titleRE.FindSubmatch(body); m != nil {
		return shorten(string(m[1]))
	}
	return shorten(tagRE.ReplaceAllString(string(body), " "))
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const limit = 200
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}

// retryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds or an
// HTTP date); 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// eventErrorFields reads the code and message of an error event, flat or
// nested under "error".
func eventErrorFields(data []byte) (code, msg string) {
	var doc struct {
		Code  json.RawMessage `json:"code"`
		Error struct {
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(data, &doc)
	raw := doc.Error.Code
	if len(raw) == 0 || string(raw) == "null" {
		raw = doc.Code
	}
	code = strings.Trim(string(raw), `"`)
	if code == "null" {
		code = ""
	}
	msg = errorMessage(data)
	if msg == "" {
		msg = "unknown error"
	}
	return code, msg
}
