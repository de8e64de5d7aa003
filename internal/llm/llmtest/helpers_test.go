package llmtest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// target is one scripted server as the invariant tests drive it.
type target struct {
	vendor      string // names the error shape in failures
	rec         *llmtest.RecordingTB
	post        func(body string) (int, string)
	expectBreak func()
	// errorMessage is the message of an error body in the vendor's shape;
	// false if the body is not one.
	errorMessage func(body string) (string, bool)
}

// check posts requests in order ("BREAK" calls ExpectPrefixBreak instead)
// and wants their statuses to be wantStatus; then, if wantError is set,
// the last body to be the vendor's error and the server's one complaint
// both to mention it, or else no complaint at all.
func (tg target) check(t *testing.T, requests []string, wantStatus []int, wantError string) {
	t.Helper()
	var statuses []int
	var last string
	for _, b := range requests {
		if b == "BREAK" {
			tg.expectBreak()
			continue
		}
		st, resp := tg.post(b)
		statuses = append(statuses, st)
		last = resp
	}
	if fmt.Sprint(statuses) != fmt.Sprint(wantStatus) {
		t.Fatalf("statuses %v, want %v (last body %s)", statuses, wantStatus, last)
	}
	complaints := tg.rec.Complaints()
	if wantError == "" {
		if len(complaints) > 0 {
			t.Errorf("unexpected complaints: %q", complaints)
		}
		return
	}
	if msg, ok := tg.errorMessage(last); !ok || !strings.Contains(msg, wantError) {
		t.Errorf("error body %s, want an %s error mentioning %q", last, tg.vendor, wantError)
	}
	if len(complaints) != 1 || !strings.Contains(complaints[0], wantError) {
		t.Errorf("complaints %q, want one mentioning %q", complaints, wantError)
	}
}

// openAIError reads an OpenAI-style error body.
func openAIError(body string) (string, bool) {
	var e struct {
		Error struct{ Message, Type string }
	}
	err := json.Unmarshal([]byte(body), &e)
	return e.Error.Message, err == nil && e.Error.Type != ""
}

// anthropicError reads an Anthropic error object.
func anthropicError(body string) (string, bool) {
	var e struct {
		Type  string
		Error struct{ Type, Message string }
	}
	err := json.Unmarshal([]byte(body), &e)
	return e.Error.Message, err == nil && e.Type == "error" && e.Error.Type != ""
}

// post sends body as send does and returns the status and body.
func post(t *testing.T, url, body string, header ...string) (int, string) {
	t.Helper()
	res, b := send(t, url, body, header...)
	return res.StatusCode, b
}

// send POSTs body as JSON to url with the extra headers (name, value
// pairs) and returns the response and its body, read whole.
func send(t *testing.T, url, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}
