// Package telemetry exports OpenTelemetry traces and metrics of the agent's
// work over OTLP/HTTP: a span per turn, per model request and per tool
// call, with tokens, cache hits, cost, tool names and exit statuses, and
// counters and histograms of the same.
//
// Key invariants:
//   - Off costs nothing: nothing here runs, and no SDK object or goroutine
//     exists, until Start is called, which the host does only when an
//     endpoint is configured.
//   - Prompt text, answers and tool arguments are never sent unless
//     Options.LogPrompts; keys never are (tool output is not sent at all).
//   - Exporting never stalls a turn: spans go through the SDK's batch
//     processor (a full queue drops), metrics through a periodic reader,
//     and a failed export drops its batch with one warning.
package telemetry

import (
	"strings"
	"time"
)

// EnvEndpoint is the standard variable that turns telemetry on when the
// config names no endpoint.
const EnvEndpoint = "OTEL_EXPORTER_OTLP_ENDPOINT"

// ShutdownTimeout bounds the flush at exit: a run that ends exports its
// spans, and an unreachable collector delays the exit no longer than this.
const ShutdownTimeout = 3 * time.Second

// Options configure the exporter.
type Options struct {
	// Endpoint is the base URL of an OTLP/HTTP receiver; /v1/traces and
	// /v1/metrics are added to it.
	Endpoint string
	// LogPrompts adds the prompt, the model's answers and tool arguments
	// to the spans.
	LogPrompts bool
	// Warn is told, once, that exports fail (nil = no warning).
	Warn func(string)
	// MetricInterval is how often metrics are exported (0 = 30s); they
	// are exported at Shutdown too.
	MetricInterval time.Duration
}

// Endpoint is where telemetry goes: the config's endpoint, else
// $OTEL_EXPORTER_OTLP_ENDPOINT; "" = off (also when OTEL_SDK_DISABLED=true).
func Endpoint(configured string, getenv func(string) string) string {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return ""
	}
	if configured != "" {
		return configured
	}
	return strings.TrimSpace(getenv(EnvEndpoint))
}
