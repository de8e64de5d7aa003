//go:build !headless

package telemetry_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/telemetry"
	"github.com/openseek/openseek/internal/telemetry/otlptest"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct {
		configured string
		env        map[string]string
		want       string
	}{
		{want: ""},
		{configured: "http://a:4318", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:4318"}, want: "http://a:4318"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": " http://b:4318 "}, want: "http://b:4318"},
		{configured: "http://a:4318", env: map[string]string{"OTEL_SDK_DISABLED": "TRUE"}, want: ""},
	} {
		if got := telemetry.Endpoint(tc.configured, func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("Endpoint(%q, %v) = %q, want %q", tc.configured, tc.env, got, tc.want)
		}
	}
}

type stubProvider struct{ err error }

func (p stubProvider) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	on(llm.Delta{Kind: llm.Retry, Attempt: 2, MaxAttempts: 3})
	if p.err != nil {
		return nil, p.err
	}
	return &llm.Response{Content: "hi", Usage: protocol.Usage{PromptTokens: 10, CompletionTokens: 2, PromptCacheHitTokens: 8, PromptCacheMissTokens: 2}}, nil
}

// A tool that calls another tool (as the script tool does) nests its
// span; a failed model request is an error span; a tool's exit code 0 is
// reported.
func TestSpansNest(t *testing.T) {
	rcv := otlptest.Start(t)
	x, err := telemetry.Start(context.Background(), telemetry.Options{Endpoint: rcv.URL})
	if err != nil {
		t.Fatal(err)
	}
	inner := x.Tool(tool.Tool{Name: "shell", Run: func(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
		return tool.Result{Data: json.RawMessage(`{"exit_code":0}`)}, nil
	}})
	outer := x.Tool(tool.Tool{Name: "script", Run: func(ctx context.Context, env *tool.Env, args json.RawMessage) (tool.Result, error) {
		return inner.Run(ctx, env, args)
	}})
	ctx, turn := x.StartTurn(context.Background(), "s1", "m", protocol.Text("secret prompt"))
	if _, err := x.Provider(stubProvider{}, "m", llm.Price{}).Stream(ctx, llm.Request{}, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Provider(stubProvider{err: errors.New("down")}, "m", llm.Price{}).Stream(ctx, llm.Request{}, func(llm.Delta) {}); err == nil {
		t.Fatal("the stub's error was lost")
	}
	if _, err := outer.Run(ctx, nil, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	turn.End(protocol.TurnSummary{Outcome: "finished", Steps: 2})
	if err := x.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	ids := map[string]otlptest.Span{}
	var chats []otlptest.Span
	for _, s := range rcv.Spans() {
		ids[s.Name] = s
		if s.Name == "chat m" {
			chats = append(chats, s)
		}
	}
	turnSpan, script, shell := ids["turn"], ids["execute_tool script"], ids["execute_tool shell"]
	if script.Parent != turnSpan.ID || shell.Parent != script.ID {
		t.Errorf("tool spans do not nest: turn %s, script %+v, shell %+v", turnSpan.ID, script, shell)
	}
	if shell.Attrs["openseek.tool.exit_code"] != "0" || shell.Attrs["openseek.tool.status"] != "ok" || shell.Error {
		t.Errorf("shell span: %+v", shell)
	}
	if len(chats) != 2 || chats[0].Error == chats[1].Error {
		t.Fatalf("want one ok and one failed model request: %+v", chats)
	}
	for _, c := range chats {
		if !c.Error && (c.Attrs["openseek.usage.cache_hit_tokens"] != "8" || c.Attrs["gen_ai.usage.input_tokens"] != "10") {
			t.Errorf("model request: %v", c.Attrs)
		}
		if _, priced := c.Attrs["openseek.cost_usd"]; priced {
			t.Errorf("an unpriced model got a cost: %v", c.Attrs)
		}
	}
	logged := slices.ContainsFunc(rcv.Spans(), func(s otlptest.Span) bool {
		return s.Attrs["openseek.completion"] != "" || s.Attrs["openseek.prompt"] != ""
	})
	if logged || rcv.Contains("secret prompt") {
		t.Errorf("prompt or completion exported without LogPrompts")
	}
}

// A collector that is down: the turn does not wait, the exit's flush is
// bounded, and the user is told once.
func TestUnreachableCollectorWarnsOnce(t *testing.T) {
	var mu sync.Mutex
	var warnings []string
	x, err := telemetry.Start(context.Background(), telemetry.Options{Endpoint: "http://127.0.0.1:1", Warn: func(s string) {
		mu.Lock()
		warnings = append(warnings, s)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, turn := x.StartTurn(context.Background(), "s", "m", protocol.Text("p"))
		turn.End(protocol.TurnSummary{Outcome: "finished"})
	}
	ctx, cancel := context.WithTimeout(context.Background(), telemetry.ShutdownTimeout)
	defer cancel()
	_ = x.Shutdown(ctx)
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) != 1 {
		t.Errorf("want one warning, got %q", warnings)
	}
}
