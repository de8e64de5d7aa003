package anthropic

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/openseek/openseek/internal/llm"
)

// statusOverloaded is Anthropic's "overloaded" status, outside net/http.
const statusOverloaded = 529

// wording is how this adapter words an HTTP error status.
var wording = llm.StatusWording{
	KeyHint: "--api-key or ANTHROPIC_API_KEY",
	Vendor: func(status int) (string, bool) {
		return "Anthropic is overloaded", status == statusOverloaded
	},
	StatusText: statusText,
}

// statusError turns an HTTP error response into an *llm.Error.
func (c *Client) statusError(res *http.Response) error {
	return llm.HTTPError(res, c.cfg.APIKey, errorMessage, wording)
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
	msg := c.redact(errorMessage(llm.ReadErrorBody(res.Body)))
	what := "the server answered with " + mt + " instead of an event stream"
	switch {
	case msg == "":
		msg = what
	case mt != "application/json":
		msg = what + ": " + msg
	}
	return &llm.Error{Status: res.StatusCode, Message: msg}
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
func (c *Client) streamError(w *llm.IdleWatch, err error, errData []byte) error {
	if ierr := w.Interrupted(); ierr != nil {
		return ierr
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
	return llm.BrokenStream(err, "event", c.cfg.APIKey)
}

// redact removes the API key from text that came from elsewhere.
func (c *Client) redact(s string) string { return llm.Redact(s, c.cfg.APIKey) }

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
	if json.Unmarshal(body, &doc) != nil {
		return llm.PageText(body)
	}
	var inner struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	var s string
	switch {
	case json.Unmarshal(doc.Error, &inner) == nil && inner.Message != "":
		return llm.Shorten(inner.Message)
	case inner.Type != "":
		return inner.Type
	case json.Unmarshal(doc.Error, &s) == nil && s != "":
		return llm.Shorten(s)
	case doc.Message != "":
		return llm.Shorten(doc.Message)
	}
	return llm.Shorten(string(body))
}
