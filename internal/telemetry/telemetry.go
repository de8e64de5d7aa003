//go:build !headless

package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// exportTimeout bounds one export request.
const exportTimeout = 5 * time.Second

// Exporter is a running telemetry pipeline. Its methods are safe for
// concurrent use.
type Exporter struct {
	tp         *sdktrace.TracerProvider
	mp         *sdkmetric.MeterProvider
	tracer     trace.Tracer
	logPrompts bool
	m          instruments
}

// instruments are the metrics, named as docs/telemetry.md lists them.
type instruments struct {
	tokens       metric.Int64Counter
	cost         metric.Float64Counter
	toolCalls    metric.Int64Counter
	turnDuration metric.Float64Histogram
	requestTime  metric.Float64Histogram
}

// Start builds the exporters and providers. It touches no network: the
// first export does, in the background.
func Start(ctx context.Context, o Options) (*Exporter, error) {
	base := strings.TrimRight(o.Endpoint, "/")
	if base == "" {
		return nil, errors.New("telemetry: no OTLP endpoint")
	}
	w := &warner{warn: o.Warn, endpoint: base}
	// No retries: an unreachable collector drops the batch at once
	// instead of holding the exit (Shutdown) for its backoff.
	spans, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(base+"/v1/traces"),
		otlptracehttp.WithTimeout(exportTimeout), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, fmt.Errorf("telemetry: %s: %w", base, err)
	}
	metrics, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(base+"/v1/metrics"),
		otlpmetrichttp.WithTimeout(exportTimeout), otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, fmt.Errorf("telemetry: %s: %w", base, err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "openseek")),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	interval := o.MetricInterval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	x := &Exporter{logPrompts: o.LogPrompts}
	x.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res),
		sdktrace.WithBatcher(spanExporter{spans, w}))
	x.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metricExporter{metrics, w}, sdkmetric.WithInterval(interval))))
	x.tracer = x.tp.Tracer("github.com/openseek/openseek")
	if err := x.m.init(x.mp.Meter("github.com/openseek/openseek")); err != nil {
		_ = x.Shutdown(ctx)
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	return x, nil
}

func (m *instruments) init(meter metric.Meter) error {
	var errs [5]error
	m.tokens, errs[0] = meter.Int64Counter("openseek.tokens", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens of model requests, by gen_ai.token.type (input, output, cache_hit) and gen_ai.request.model"))
	m.cost, errs[1] = meter.Float64Counter("openseek.cost", metric.WithUnit("USD"),
		metric.WithDescription("Cost of model requests in US dollars, by model (requests of unpriced models are not counted)"))
	m.toolCalls, errs[2] = meter.Int64Counter("openseek.tool.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls, by gen_ai.tool.name and openseek.tool.status (ok, error)"))
	m.turnDuration, errs[3] = meter.Float64Histogram("openseek.turn.duration", metric.WithUnit("s"),
		metric.WithDescription("Wall time of a turn, by openseek.turn.outcome"))
	m.requestTime, errs[4] = meter.Float64Histogram("openseek.model.request.duration", metric.WithUnit("s"),
		metric.WithDescription("Wall time of a model request, by model"))
	return errors.Join(errs[:]...)
}

// Shutdown exports what is buffered and stops; ctx bounds it (see
// ShutdownTimeout).
func (x *Exporter) Shutdown(ctx context.Context) error {
	var wg sync.WaitGroup
	var terr, merr error
	wg.Go(func() { terr = x.tp.Shutdown(ctx) })
	wg.Go(func() { merr = x.mp.Shutdown(ctx) })
	wg.Wait()
	return errors.Join(terr, merr)
}

// warner says once that exports fail; the batch is dropped.
type warner struct {
	once     sync.Once
	warn     func(string)
	endpoint string
}

func (w *warner) failed(err error) {
	if err == nil || w.warn == nil {
		return
	}
	w.once.Do(func() {
		w.warn(fmt.Sprintf("[telemetry] could not export to %s (%v); telemetry is dropped while it fails", w.endpoint, err))
	})
}

// spanExporter drops a batch that fails, with the one warning, instead of
// handing the error to the SDK's global handler (which logs every one).
type spanExporter struct {
	sdktrace.SpanExporter
	w *warner
}

func (e spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.w.failed(e.SpanExporter.ExportSpans(ctx, spans))
	return nil
}

type metricExporter struct {
	sdkmetric.Exporter
	w *warner
}

func (e metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	e.w.failed(e.Exporter.Export(ctx, rm))
	return nil
}
