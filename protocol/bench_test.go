package protocol

import (
	"bytes"
	"io"
	"os"
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

// referenceStream is 10,000 events cycling through the reference events,
// every variant of the reference in its wire mix.
func referenceStream(b *testing.B) ([]Event, [][]byte) {
	data, err := os.ReadFile("testdata/reference-events.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for l := range bytes.SplitSeq(bytes.TrimSpace(data), []byte("\n")) {
		if _, ok := ParseEvent(l); ok {
			lines = append(lines, l)
		}
	}
	evs := make([]Event, 10000)
	raw := make([][]byte, len(evs))
	for i := range evs {
		raw[i] = lines[i%len(lines)]
		evs[i], _ = ParseEvent(raw[i])
	}
	return evs, raw
}

func BenchmarkEmit10kReferenceEvents(b *testing.B) {
	evs, _ := referenceStream(b)
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range evs {
			buf = AppendEvent(buf[:0], e)
		}
	}
}

func BenchmarkParse10kReferenceEvents(b *testing.B) {
	_, raw := referenceStream(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range raw {
			if _, ok := ParseEvent(l); !ok {
				b.Fatal("unparsed")
			}
		}
	}
}
