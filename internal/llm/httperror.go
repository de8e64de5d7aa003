package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The vendor-neutral half of turning a failed HTTP model call into an
// *Error, shared by the adapters: reading and shortening an error body,
// redacting the API key, Retry-After, and the wording of an error status.
// What a vendor's error body looks like stays in its adapter.

// MaxErrorBody bounds how much of an error page is read.
const MaxErrorBody = 64 << 10

// ReadErrorBody reads at most MaxErrorBody bytes of an error body; a read
// error just ends it.
func ReadErrorBody(r io.Reader) []byte {
	body, _ := io.ReadAll(io.LimitReader(r, MaxErrorBody))
	return body
}

// StatusWording is what differs between vendors in the message of an HTTP
// error status.
type StatusWording struct {
	// KeyHint says how to supply the key, in the message for a refused one
	// (401, 403): "--api-key or ANTHROPIC_API_KEY".
	KeyHint string
	// Vendor names a retryable status of the vendor's own (Anthropic's 529
	// "overloaded"); ok false for the rest. nil = none.
	Vendor func(status int) (prefix string, ok bool)
	// StatusText names a status when there is no message; nil =
	// http.StatusText.
	StatusText func(status int) string
}

// HTTPError builds the *Error for res, an HTTP error response, and closes
// its body: the message is taken from the body by message (ErrorMessage
// when nil), stripped of key, and worded by StatusError.
func HTTPError(res *http.Response, key string, message func([]byte) string, w StatusWording) *Error {
	defer res.Body.Close()
	if message == nil {
		message = ErrorMessage
	}
	msg := Redact(message(ReadErrorBody(res.Body)), key)
	return StatusError(res.StatusCode, res.Header, msg, w)
}

// StatusError builds the *Error for an HTTP error status with header h and
// msg, the readable (and redacted) message from its body ("" when none).
// 401 and 403 say the key was refused; 429, 5xx, 408, 409 and the
// vendor's own statuses are retryable; RetryAfter comes from h.
func StatusError(status int, h http.Header, msg string, w StatusWording) *Error {
	text := w.StatusText
	if text == nil {
		text = http.StatusText
	}
	e := &Error{Status: status, RetryAfter: RetryAfter(h, time.Now())}
	prefix := ""
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		prefix = "the API key was refused; check the key for this model (" + w.KeyHint + ")"
	case status == http.StatusTooManyRequests:
		prefix = "rate limited"
		e.Retryable = true
	default:
		if p, ok := vendorStatus(w.Vendor, status); ok {
			prefix = p
			e.Retryable = true
		} else {
			e.Retryable = status >= 500 || status == http.StatusRequestTimeout || status == http.StatusConflict
		}
	}
	switch {
	case prefix != "" && msg != "":
		e.Message = prefix + ": " + msg
	case prefix != "":
		e.Message = prefix
	case msg != "":
		e.Message = msg
	default:
		e.Message = text(status)
	}
	e.Err = errors.New(text(status))
	return e
}

func vendorStatus(f func(int) (string, bool), status int) (string, bool) {
	if f == nil {
		return "", false
	}
	return f(status)
}

// BrokenStream classifies err, which ended the reading of an event
// stream, once the adapter has ruled out the vendor's error events and the
// call's own interruption (IdleWatch.Interrupted): a malformed what
// ("chunk", "event"), which a new attempt would not mend, or a broken
// stream, which it may.
func BrokenStream(err error, what, key string) *Error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return &Error{Message: "the model API sent a malformed " + what + ": " + err.Error(), Err: err}
	}
	return &Error{Message: "the stream broke: " + Redact(err.Error(), key), Retryable: true, Err: err}
}

// Redact removes the API key from text that came from elsewhere. Keys
// shorter than 4 bytes are left alone (they would match everywhere).
func Redact(s, key string) string {
	if len(key) >= 4 {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	return s
}

var (
	titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// ErrorMessage extracts a readable message from an error body in the
// OpenAI style most gateways share: {"error":{"message"}}, {"error":"..."},
// {"message"} or {"detail"}; else the whole JSON document or PageText,
// shortened. "" for an empty body.
func ErrorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return PageText(body)
	}
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
	return Shorten(string(body))
}

// PageText is the readable part of a body that is not JSON: an HTML page's
// title, else its text without tags, shortened.
func PageText(body []byte) string {
	if m := titleRE.FindSubmatch(body); m != nil {
		return Shorten(string(m[1]))
	}
	return Shorten(tagRE.ReplaceAllString(string(body), " "))
}

// Shorten collapses runs of white space and cuts s to 200 runes, marking
// a cut with "…".
func Shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const limit = 200
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}

// RetryAfter reads retry-after-ms (OpenAI's, also sent by Anthropic) or
// Retry-After (seconds or an HTTP date); 0 when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
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
