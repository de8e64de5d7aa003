package engine

import (
	"context"
	"testing"

	"go.uber.org/goleak"
)

// TestTelemetryStartsOnlyWhenAsked: with no endpoint the host starts no
// part of the OpenTelemetry SDK (no exporter, no goroutine); the standard
// variable turns it on, and OTEL_SDK_DISABLED=true off again.
func TestTelemetryStartsOnlyWhenAsked(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		on   bool
	}{
		{name: "off by default"},
		{name: "standard variable", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, on: true},
		{name: "disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			h, err := NewHost(context.Background(), Options{Dir: t.TempDir(), Home: t.TempDir(), Getenv: func(k string) string { return tc.env[k] }})
			if err != nil {
				t.Fatal(err)
			}
			if (h.tel != nil) != tc.on {
				t.Fatalf("telemetry started: %v, want %v", h.tel != nil, tc.on)
			}
			if !tc.on {
				// Nothing runs in the background of a host without telemetry.
				goleak.VerifyNone(t, before)
			}
			h.Close()
			goleak.VerifyNone(t, before) // the exporter's goroutines end with the host
		})
	}
}
