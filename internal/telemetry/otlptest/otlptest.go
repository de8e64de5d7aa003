// Package otlptest is an in-process OTLP/HTTP receiver for tests: it
// decodes the protobuf export requests a collector would get on
// /v1/traces and /v1/metrics and keeps their spans, metric names and raw
// bodies.
package otlptest

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, its attributes as strings.
type Span struct {
	Name, ID, Parent string
	Error            bool // status code ERROR
	Attrs            map[string]string
}

// Receiver is a running receiver; Close it.
type Receiver struct {
	URL string // the base URL: OTEL_EXPORTER_OTLP_ENDPOINT or [telemetry] otlp_endpoint

	srv     *httptest.Server
	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every request
	spans   []Span
	metrics []string
	bodies  [][]byte
}

// Start starts a receiver, closed when the test ends.
func Start(t testing.TB) *Receiver {
	r := &Receiver{changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.traces)
	mux.HandleFunc("POST /v1/metrics", r.metricsHandler)
	r.srv = httptest.NewServer(mux)
	r.URL = r.srv.URL
	t.Cleanup(r.srv.Close)
	return r
}

// handle decodes an export request into msg, lets keep take what it
// holds and answers with an empty response.
func (r *Receiver) handle(w http.ResponseWriter, req *http.Request, msg, resp proto.Message, keep func(body []byte)) {
	var rd io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rd = z
	}
	b, err := io.ReadAll(rd)
	if err == nil {
		err = proto.Unmarshal(b, msg)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	keep(b)
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *Receiver) traces(w http.ResponseWriter, req *http.Request) {
	var msg coltracepb.ExportTraceServiceRequest
	r.handle(w, req, &msg, &coltracepb.ExportTraceServiceResponse{}, func(b []byte) {
		var got []Span
		for _, rs := range msg.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					got = append(got, span(s))
				}
			}
		}
		r.record(b, got, nil)
	})
}

func (r *Receiver) metricsHandler(w http.ResponseWriter, req *http.Request) {
	var msg colmetricpb.ExportMetricsServiceRequest
	r.handle(w, req, &msg, &colmetricpb.ExportMetricsServiceResponse{}, func(b []byte) {
		var names []string
		for _, rm := range msg.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					names = append(names, m.Name)
				}
			}
		}
		r.record(b, nil, names)
	})
}

func (r *Receiver) record(body []byte, spans []Span, metrics []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bodies = append(r.bodies, body)
	r.spans = append(r.spans, spans...)
	r.metrics = append(r.metrics, metrics...)
	close(r.changed)
	r.changed = make(chan struct{})
}

func span(s *tracepb.Span) Span {
	out := Span{Name: s.Name, ID: hex.EncodeToString(s.SpanId), Parent: hex.EncodeToString(s.ParentSpanId),
		Error: s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR, Attrs: map[string]string{}}
	for _, kv := range s.Attributes {
		out.Attrs[kv.Key] = value(kv.Value)
	}
	return out
}

func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'f', -1, 64)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	}
	return v.String()
}

// Spans are the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Metrics are the names of the metrics received so far (with repeats).
func (r *Receiver) Metrics() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.metrics)
}

// Contains reports whether any request body received holds s (the
// protobuf carries strings as they are).
func (r *Receiver) Contains(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.bodies {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

// Wait waits until done holds for what was received, or fails the test
// after timeout.
func (r *Receiver) Wait(t testing.TB, timeout time.Duration, what string, done func(r *Receiver) bool) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		changed := r.changed
		r.mu.Unlock()
		if done(r) {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no %s in %v; spans %+v, metrics %v", what, timeout, r.Spans(), r.Metrics())
		}
	}
}
