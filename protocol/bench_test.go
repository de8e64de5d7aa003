package protocol

import (
	"io"
	"strings"
	"testing"
)

func BenchmarkEmitToolResult(b *testing.B) {
	e := ToolResult{ToolCallID: "call_1", ToolName: "read", Content: strings.Repeat("line of \"file\" body\n", 50), Brief: ptr("read main.go")}
	b.ReportAllocs()
	for b.Loop() {
		_ = Emit(e)
	}
}

func BenchmarkEmitAssistantDelta(b *testing.B) {
	e := AssistantDelta{Content: "Hello, wor"}
	b.ReportAllocs()
	for b.Loop() {
		_ = Emit(e)
	}
}

func BenchmarkWriterEmitAssistantDelta(b *testing.B) {
	w := NewWriter(io.Discard)
	e := AssistantDelta{Content: "Hello, wor"}
	b.ReportAllocs()
	for b.Loop() {
		_ = w.Emit(e)
	}
}

func BenchmarkParseEventToolResult(b *testing.B) {
	line := Emit(ToolResult{ToolCallID: "call_1", ToolName: "read", Content: strings.Repeat("line of \"file\" body\n", 50), Brief: ptr("read main.go")})
	b.ReportAllocs()
	for b.Loop() {
		_, _ = ParseEvent(line)
	}
}
