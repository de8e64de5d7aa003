package llmtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/openseek/openseek/internal/llm"
)

// Helpers the adapters' tests share: a delta collector, a testing.TB that
// keeps a server's complaints, and a canned HTTP transport.

// Recorder collects the deltas of one Stream call; pass its On.
type Recorder struct {
	Text, Reasoning strings.Builder
	Retries         []llm.Delta
	N               int // deltas of any kind
}

// On records d.
func (r *Recorder) On(d llm.Delta) {
	r.N++
	switch d.Kind {
	case llm.TextDelta:
		r.Text.WriteString(d.Text)
	case llm.ReasoningDelta:
		r.Reasoning.WriteString(d.Text)
	case llm.Retry:
		r.Retries = append(r.Retries, d)
	}
}

// RecordingTB keeps the server's complaints (Errorf) instead of failing
// the test, for tests that expect a request to be rejected and for testing
// the checks themselves. Everything else goes to the embedded TB.
type RecordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

// Errorf records the complaint.
func (r *RecordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// Complaints returns the complaints so far.
func (r *RecordingTB) Complaints() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

// Canned is an http.RoundTripper that answers every request with one
// fixed response, no network.
type Canned struct {
	Status      int
	ContentType string
	Body        []byte
}

// RoundTrip answers r with the canned response.
func (c Canned) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: c.Status,
		Header:     http.Header{"Content-Type": {c.ContentType}},
		Body:       io.NopCloser(bytes.NewReader(c.Body)),
		Request:    r,
	}, nil
}
