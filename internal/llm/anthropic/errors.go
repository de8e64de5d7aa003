package anthropic

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

	"github.com/openseek/openseek/internal/llm"
)

// maxErrorBody bounds how much of an error page is read.
const maxErrorBody = 64 << 10

// statusOverloaded is Anthropic's "overloaded" status, outside net/http.
const statusOverloaded = 529

// statusError turns an HTTP error response into an *llm.Error.
func (c *Client) statusError(res *http.Response) error {
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	msg := c.redact(errorMessage(body))
	e := &llm.Error{Status: res.StatusCode, RetryAfter: retryAfter(res.Header, time.Now())}
	prefix := ""
	switch code := res.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		prefix = "the API key was refused; check the key for this model (--api-key or ANTHROPIC_API_KEY)"
	case code == http.StatusTooManyRequests:
		prefix = "rate limited"
		e.Retryable = true
	case code == statusOverloaded:
		prefix = "Anthropic is overloaded"
		e.Retryable = true
	default:
		e.Retryable = code >= 500 || code == http.StatusRequestTimeout || code == http.StatusConflict
	}
	switch {
	case prefix != "" && msg != "":
		e.Message = prefix + ": " + msg
	case prefix != "":
		e.Message = prefix
	case msg != "":
		e.Message = msg
	default:
		e.Message = statusText(res.StatusCode)
	}
	e.Err = errors.New(statusText(res.StatusCode))
	return e
}

func statusText(code int) string {
	if code == statusOverloaded {
		return "Overloaded"
	}
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "HTTP " + strconv.Itoa(code)
}

// notStreamed handles a 200 answered with a document of media type mt
// instead of an event stream: usually an error object from a gateway or a
// proxy's page.
func (c *Client) notStreamed(res *http.Response, mt string) error {
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	msg := c.redact(errorMessage(body))
	what := "the server answered with " + mt + " instead of an event stream"
	switch {
	case msg == "":
		msg = what
	case mt != "application/json":
		msg = what + ": " + msg
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

// errorTypeStatus is the HTTP status Anthropic documents for an error
// type, used for errors sent inside a stream that has already said 200.
func errorTypeStatus(typ string) (int, bool) {
	switch typ {
	case "invalid_request_error":
		return http.StatusBadRequest, true
	case "authentication_error":
		return http.StatusUnauthorized, true
	case "permission_error":
		return http.StatusForbidden, true
	case "not_found_error":
		return http.StatusNotFound, true
	case "request_too_large":
		return http.StatusRequestEntityTooLarge, true
	case "rate_limit_error":
		return http.StatusTooManyRequests, true
	case "api_error":
		return http.StatusInternalServerError, true
	case "timeout_error":
		return http.StatusGatewayTimeout, true
	case "overloaded_error":
		return statusOverloaded, true
	}
	return 0, false
}

// streamError classifies a failure while reading the stream. errData is
// the payload of an error event, when that is what ended it.
func (c *Client) streamError(parent, ctx context.Context, err error, errData []byte) error {
	if perr := parent.Err(); perr != nil {
		return fmt.Errorf("model call: %w", perr)
	}
	if errors.Is(context.Cause(ctx), errIdle) {
		return c.idleError()
	}
	if errData != nil {
		var doc struct {
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(errData, &doc)
		status, known := errorTypeStatus(doc.Error.Type)
		msg := c.redact(errorMessage(errData))
		return &llm.Error{
			Status:    status,
			Message:   "the model API reported an error mid-stream: " + msg,
			Retryable: !known || status == http.StatusTooManyRequests || status >= 500,
			Err:       err,
		}
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return &llm.Error{Message: "the model API sent a malformed event: " + err.Error(), Err: err}
	}
	return &llm.Error{Message: "the stream broke: " + c.redact(err.Error()), Retryable: true, Err: err}
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

// errorMessage extracts a readable message from an error body: Anthropic's
// {"type":"error","error":{"type","message"}} (the message, else the
// type), a gateway's {"error":"..."} or {"message"}, else the page's title
// or its text, shortened.
func errorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &doc) == nil {
		var inner struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(doc.Error, &inner) == nil && inner.Message != "":
			return shorten(inner.Message)
		case inner.Type != "":
			return inner.Type
		case json.Unmarshal(doc.Error, &s) == nil && s != "":
			return shorten(s)
		case doc.Message != "":
			return shorten(doc.Message)
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

// retryAfter reads retry-after-ms or Retry-After (seconds or an HTTP
// date); 0 when absent or unreadable.
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
