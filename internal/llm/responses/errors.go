package responses

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/openseek/openseek/internal/llm"
)

// wording is how this adapter words an HTTP error status.
var wording = llm.StatusWording{KeyHint: "--api-key or its environment variable"}

// statusError turns an HTTP error response into an *llm.Error.
func (c *Client) statusError(res *http.Response) error {
	return llm.HTTPError(res, c.cfg.APIKey, nil, wording)
}

// notStreamed handles a 200 answered with a JSON document instead of an
// event stream: usually an error object from a gateway.
func (c *Client) notStreamed(res *http.Response) error { return llm.NotStreamed(res, c.cfg.APIKey) }

// streamError classifies a failure while reading the stream.
func (c *Client) streamError(w *llm.IdleWatch, err error) error {
	if ierr := w.Interrupted(); ierr != nil {
		return ierr
	}
	// The SDK turns any event with a top-level "error" key into a
	// StreamError (error events in the {"error":{...}} shape, or a
	// gateway's); the flat {"type":"error","code"} shape reaches the fold.
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		code, msg := eventErrorFields(se.Event.Data)
		return c.eventError(&eventFailure{code: code, message: msg})
	}
	return llm.BrokenStream(err, "event", c.cfg.APIKey)
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

// redact removes the API key from text that came from elsewhere.
func (c *Client) redact(s string) string { return llm.Redact(s, c.cfg.APIKey) }

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
	msg = llm.ErrorMessage(data)
	if msg == "" {
		msg = "unknown error"
	}
	return code, msg
}
