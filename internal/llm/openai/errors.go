package openai

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
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		msg := c.redact(llm.ErrorMessage(se.Event.Data))
		status := errorCode(se.Event.Data)
		return &llm.Error{
			Status:    status,
			Message:   "the model API reported an error mid-stream: " + msg,
			Retryable: status == 0 || status == http.StatusTooManyRequests || status >= 500,
			Err:       err,
		}
	}
	return llm.BrokenStream(err, "chunk", c.cfg.APIKey)
}

// redact removes the API key from text that came from elsewhere.
func (c *Client) redact(s string) string { return llm.Redact(s, c.cfg.APIKey) }

// errorCode reads a numeric error.code from a stream error event.
func errorCode(data []byte) int {
	var doc struct {
		Error struct {
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.Trim(string(doc.Error.Code), `"`))
	if err != nil || n < 100 || n > 599 {
		return 0
	}
	return n
}
