package runtime

import (
	"context"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/telemetry"
	"github.com/openseek/openseek/internal/telemetry/otlptest"
	"github.com/openseek/openseek/protocol"
)

// A sub-agent's model requests and tool calls are spans under the agent
// call that started it.
func TestTelemetryTracesSubagents(t *testing.T) {
	rcv := otlptest.Start(t)
	x, err := telemetry.Start(context.Background(), telemetry.Options{Endpoint: rcv.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a1", Name: "agent", Args: `{"description":"look","prompt":"Report"}`}),
		llmtest.Text("child report"),
		llmtest.Text("done"),
	)
	srv.MultiConversation()
	e, _, _ := newEngine(t, srv, func(o *testOptions) { o.Telemetry = x })
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
