package engine

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/telemetry"
	"github.com/openseek/openseek/internal/telemetry/otlptest"
	"github.com/openseek/openseek/protocol"
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

// A sub-agent's model requests and tool calls are spans under the agent
// call that started it.
func TestTelemetryTracesSubagents(t *testing.T) {
	rcv := otlptest.Start(t)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a1", Name: "agent", Args: `{"description":"look","prompt":"Report"}`}),
		llmtest.Text("child report"),
		llmtest.Text("done"),
	)
	srv.MultiConversation()
	// The host starts the exporter; the runtime traces through it.
	e, _, _ := newEngine(t, srv, func(o *Options) {
		o.Getenv = func(k string) string {
			if k == telemetry.EnvEndpoint {
				return rcv.URL
			}
			return ""
		}
	})
	x := e.opts.Telemetry
	if x == nil {
		t.Fatal("the host started no exporter")
	}
	if out, err := e.Prompt(context.Background(), protocol.Text("delegate"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	if err := x.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var agentCall otlptest.Span
	var chats []otlptest.Span
	for _, s := range rcv.Spans() {
		switch s.Name {
		case "execute_tool agent":
			agentCall = s
		case "chat " + e.Model():
			chats = append(chats, s)
		}
	}
	children := 0
	for _, c := range chats {
		if c.Parent == agentCall.ID {
			children++
		}
	}
	if agentCall.ID == "" || len(chats) != 3 || children != 1 {
		t.Errorf("want the child's one request under the agent call, of 3: agent %+v, requests %+v", agentCall, chats)
	}
}
