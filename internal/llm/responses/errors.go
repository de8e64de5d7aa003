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

// vendor is how this adapter reaches and reads its API.
var vendor = llm.Vendor{
	KeyHeader: "Authorization", KeyPrefix: "Bearer ",
	Wording: llm.StatusWording{KeyHint: "--api-key or its environment variable"},
	What:    "event",
}

// streamError classifies a failure while reading the stream: an error
// event or a failed response is an *llm.Error; anything else is left to
// llm.API.Stream.
func streamError(err error) error {
	// The SDK turns any event with a top-level "error" key into a
	// StreamError (error events in the {"error":{...}} shape, or a
	// gateway's); the flat {"type":"error","code"} shape reaches the fold.
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		code, msg := eventErrorFields(se.Event.Data)
		return eventError(&eventFailure{code: code, message: msg})
	}
	var ef *eventFailure
	if errors.As(err, &ef) {
		return eventError(err)
	}
	return err
}

// eventError classifies an error event or a failed response (err wraps an
// *eventFailure). Server errors and rate limits may pass on a new attempt;
// a rejected prompt will not.
func eventError(err error) *llm.Error {
	var ef *eventFailure
	errors.As(err, &ef)
	status := 0
	if n, nerr := strconv.Atoi(ef.code); nerr == nil && n >= 400 && n <= 599 {
		status = n
	}
	e := llm.EventError(status, ef.Error(), err)
	switch {
	case strings.Contains(ef.code, "rate_limit"):
		e.Status, e.Retryable = http.StatusTooManyRequests, true
	case ef.code == "" || ef.code == "server_error" || strings.Contains(ef.code, "timeout"):
		e.Retryable = true
	case status == 0:
		e.Retryable = false // a code of its own: the prompt was rejected
	}
	return e
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
	msg = llm.ErrorMessage(data)
	if msg == "" {
		msg = "unknown error"
	}
	return code, msg
}
