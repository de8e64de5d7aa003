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

// vendor is how this adapter reaches and reads its API.
var vendor = llm.Vendor{
	KeyHeader: "X-Api-Key",
	Wording: llm.StatusWording{
		KeyHint: "--api-key or ANTHROPIC_API_KEY",
		Vendor: func(status int) (string, bool) {
			return "Anthropic is overloaded", status == statusOverloaded
		},
		StatusText: statusText,
	},
	ErrorMessage: errorMessage,
	// A proxy's login page is refused, whatever its media type.
	EventStreamOnly: true,
	What:            "event",
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

// eventError classifies a failure while reading the stream. errData is
// the payload of an error event, when that is what ended it: an
// *llm.Error; anything else is left to llm.API.Stream.
func eventError(err error, errData []byte) error {
	if errData == nil {
		return err
	}
	var doc struct {
		Error struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	_ = json.Unmarshal(errData, &doc)
	status, _ := errorTypeStatus(doc.Error.Type)
	return llm.EventError(status, errorMessage(errData), err)
}

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
