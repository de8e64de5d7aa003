//go:build !headless

package telemetry

import (
	"context"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// Attribute names. The gen_ai.* ones follow OpenTelemetry's semantic
// conventions for generative AI; docs/telemetry.md lists them all.
const (
	AttrSession        = "openseek.session.id"
	AttrOperation      = "gen_ai.operation.name"
	AttrModel          = "gen_ai.request.model"
	AttrResponseModel  = "gen_ai.response.model"
	AttrFinishReasons  = "gen_ai.response.finish_reasons"
	AttrInputTokens    = "gen_ai.usage.input_tokens"
	AttrOutputTokens   = "gen_ai.usage.output_tokens"
	AttrCacheHitTokens = "openseek.usage.cache_hit_tokens"
	AttrCacheMiss      = "openseek.usage.cache_miss_tokens"
	AttrCost           = "openseek.cost_usd"
	AttrOutcome        = "openseek.turn.outcome"
	AttrSteps          = "openseek.turn.steps"
	AttrToolName       = "gen_ai.tool.name"
	AttrToolStatus     = "openseek.tool.status"
	AttrExitCode       = "openseek.tool.exit_code"
	AttrTokenType      = "gen_ai.token.type"
	// Only with log_prompts:
	AttrPrompt     = "openseek.prompt"
	AttrCompletion = "openseek.completion"
	AttrArguments  = "openseek.tool.arguments"
)

// Turn is the span of one turn, from the prompt to its summary.
type Turn struct {
	x     *Exporter
	span  trace.Span
	start time.Time
}

// StartTurn opens a turn's span; the model requests and tool calls made
// under the returned context are its children.
func (x *Exporter) StartTurn(ctx context.Context, sessionID, model string, prompt protocol.Content) (context.Context, *Turn) {
	attrs := []attribute.KeyValue{attribute.String(AttrSession, sessionID), attribute.String(AttrModel, model)}
	if x.logPrompts {
		attrs = append(attrs, attribute.String(AttrPrompt, prompt.Text()))
	}
	ctx, span := x.tracer.Start(ctx, "turn", trace.WithAttributes(attrs...))
	return ctx, &Turn{x: x, span: span, start: time.Now()}
}

// End closes the turn with its totals (sub-agents included).
func (t *Turn) End(sum protocol.TurnSummary) {
	t.span.SetAttributes(attribute.String(AttrOutcome, sum.Outcome), attribute.Int(AttrSteps, sum.Steps))
	t.span.SetAttributes(usageAttrs(sum.Usage)...)
	if sum.CostUSD != nil {
		t.span.SetAttributes(attribute.Float64(AttrCost, *sum.CostUSD))
	}
	if sum.Outcome != "finished" {
		t.span.SetStatus(codes.Error, sum.Outcome)
	}
	t.finish(sum.Outcome)
}

// Fail closes a turn that ended in an error (the session could not go
// on); the error's text is the runtime's, not the model's.
func (t *Turn) Fail(err error) {
	t.span.SetStatus(codes.Error, err.Error())
	t.span.SetAttributes(attribute.String(AttrOutcome, "error"))
	t.finish("error")
}

func (t *Turn) finish(outcome string) {
	t.x.m.turnDuration.Record(context.Background(), time.Since(t.start).Seconds(),
		metric.WithAttributes(attribute.String(AttrOutcome, outcome)))
	t.span.End()
}

func usageAttrs(u protocol.Usage) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.Int(AttrInputTokens, u.PromptTokens),
		attribute.Int(AttrOutputTokens, u.CompletionTokens),
		attribute.Int(AttrCacheHitTokens, u.PromptCacheHitTokens),
		attribute.Int(AttrCacheMiss, u.PromptCacheMissTokens),
	}
}

// Provider wraps a model client: each request is a span (a child of the
// turn's) with its tokens and cost, and counts in the metrics.
func (x *Exporter) Provider(p llm.Provider, model string, price llm.Price) llm.Provider {
	return &provider{Provider: p, x: x, model: model, price: price}
}

type provider struct {
	llm.Provider
	x     *Exporter
	model string
	price llm.Price
}

func (p *provider) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	x := p.x
	model := attribute.String(AttrModel, p.model)
	ctx, span := x.tracer.Start(ctx, "chat "+p.model, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String(AttrOperation, "chat"), model))
	defer span.End()
	start := time.Now()
	resp, err := p.Provider.Stream(ctx, req, func(d llm.Delta) {
		if d.Kind == llm.Retry {
			span.AddEvent("retry", trace.WithAttributes(attribute.Int("openseek.retry.attempt", d.Attempt)))
		}
		on(d)
	})
	x.m.requestTime.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(model))
	if err != nil {
		span.SetStatus(codes.Error, "model request failed")
		return resp, err
	}
	u := resp.Usage
	span.SetAttributes(usageAttrs(u)...)
	if resp.Model != "" {
		span.SetAttributes(attribute.String(AttrResponseModel, resp.Model))
	}
	if resp.FinishReason != "" {
		span.SetAttributes(attribute.StringSlice(AttrFinishReasons, []string{resp.FinishReason}))
	}
	if x.logPrompts && resp.Content != "" {
		span.SetAttributes(attribute.String(AttrCompletion, resp.Content))
	}
	for kind, n := range map[string]int{"input": u.PromptTokens, "output": u.CompletionTokens, "cache_hit": u.PromptCacheHitTokens} {
		if n > 0 {
			x.m.tokens.Add(ctx, int64(n), metric.WithAttributes(model, attribute.String(AttrTokenType, kind)))
		}
	}
	if usd, ok := p.price.Of(u); ok {
		span.SetAttributes(attribute.Float64(AttrCost, usd))
		x.m.cost.Add(ctx, usd, metric.WithAttributes(model))
	}
	return resp, nil
}

// Tool wraps a tool: each call is a span (a child of the turn's, or of the
// calling tool's) with the tool's name, status and exit code, and counts
// in the metrics. Its output is never sent.
func (x *Exporter) Tool(t tool.Tool) tool.Tool {
	run, name := t.Run, t.Name
	t.Run = func(ctx context.Context, env *tool.Env, args json.RawMessage) (tool.Result, error) {
		attrs := []attribute.KeyValue{attribute.String(AttrOperation, "execute_tool"), attribute.String(AttrToolName, name)}
		if x.logPrompts {
			attrs = append(attrs, attribute.String(AttrArguments, string(args)))
		}
		ctx, span := x.tracer.Start(ctx, "execute_tool "+name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
		defer span.End()
		res, err := run(ctx, env, args)
		status := "ok"
		if err != nil || res.IsError {
			status = "error"
			span.SetStatus(codes.Error, "the tool reported an error")
		}
		span.SetAttributes(attribute.String(AttrToolStatus, status))
		if code, ok := exitCode(res.Data); ok {
			span.SetAttributes(attribute.Int(AttrExitCode, code))
		}
		x.m.toolCalls.Add(ctx, 1, metric.WithAttributes(attribute.String(AttrToolName, name), attribute.String(AttrToolStatus, status)))
		return res, err
	}
	return t
}

// exitCode reads the exit code a command tool (shell, job tools) reports
// in its machine-readable detail.
func exitCode(data json.RawMessage) (int, bool) {
	if len(data) == 0 {
		return 0, false
	}
	var d struct {
		ExitCode *int `json:"exit_code"`
	}
	if json.Unmarshal(data, &d) != nil || d.ExitCode == nil {
		return 0, false
	}
	return *d.ExitCode, true
}
