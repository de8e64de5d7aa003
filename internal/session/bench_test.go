package session

import (
	"fmt"
	"os"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

// benchItems is a realistic mix: prompts, tool calls, results, answers.
func benchItems(i int) Item {
	switch i % 4 {
	case 0:
		return &User{Content: protocol.Text(fmt.Sprintf("please look at file %d and fix the failing test", i))}
	case 1:
		r := "I should read the file first."
		return &Assistant{ToolCalls: []chat.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "read", Arguments: `{"path":"internal/x/file.go"}`}}, Reasoning: &r}
	case 2:
		b := "42 lines"
		return &ToolResult{ToolCallID: fmt.Sprintf("call_%d", i-1), ToolName: "read", Content: protocol.Text("package x\n\nfunc F() int { return 1 }\n"), Brief: &b, Data: []byte(`{"lines":42}`)}
	default:
		return &Assistant{Content: "Fixed: F now returns the right value.", ToolCalls: []chat.ToolCall{}, Usage: &protocol.Usage{PromptTokens: 1200, CompletionTokens: 80, TotalTokens: 1280, PromptCacheHitTokens: 1000, PromptCacheMissTokens: 200}}
	}
}

func BenchmarkLoad100k(b *testing.B) {
	st := NewStore(b.TempDir())
	id := "bench"
	sess := &Session{ID: id, SystemPrompt: "You are a coding agent."}
	for i := range 100000 {
		sess.Events = append(sess.Events, Event{Sequence: i + 1, TS: 1758700000000 + int64(i), Item: benchItems(i)})
	}
	data := encodeFile(sess)
	if err := os.MkdirAll(st.Dir(id), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(st.Path(id), data, 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		got, err := st.Load(id)
		if err != nil {
			b.Fatal(err)
		}
		if got.LastSequence() != 100000 {
			b.Fatalf("last sequence %d", got.LastSequence())
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	st := NewStore(b.TempDir())
	w, err := st.OpenWriter("bench", "You are a coding agent.", "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	i := 0
	for b.Loop() {
		if _, err := w.Append(benchItems(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkAppendAtDepth appends to sessions that already hold 10, 1,000
// and 100,000 events: an append is one write and one fdatasync whatever
// the length of the file (the writer checks the file by its fingerprint,
// it never reads or re-encodes what is there).
func BenchmarkAppendAtDepth(b *testing.B) {
	for _, depth := range []int{10, 1000, 100000} {
		b.Run(fmt.Sprint("depth=", depth), func(b *testing.B) {
			st := NewStore(b.TempDir())
			sess := &Session{ID: "bench", SystemPrompt: "You are a coding agent."}
			for i := range depth {
				sess.Events = append(sess.Events, Event{Sequence: i + 1, TS: 1758700000000 + int64(i), Item: benchItems(i)})
			}
			if err := os.MkdirAll(st.Dir("bench"), 0o700); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(st.Path("bench"), encodeFile(sess), 0o600); err != nil {
				b.Fatal(err)
			}
			w, err := st.OpenWriter("bench", "", "bench")
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			b.ReportAllocs()
			i := depth
			for b.Loop() {
				if _, err := w.Append(benchItems(i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func benchSession(n int) *Session {
	sess := &Session{ID: "bench", SystemPrompt: "You are a coding agent."}
	for i := range n {
		sess.Events = append(sess.Events, Event{Sequence: i + 1, TS: 1758700000000 + int64(i), Item: benchItems(i)})
	}
	return sess
}

// BenchmarkEncode10k renders a 10,000-event session file.
func BenchmarkEncode10k(b *testing.B) {
	sess := benchSession(10000)
	b.SetBytes(int64(len(encodeFile(sess))))
	b.ReportAllocs()
	for b.Loop() {
		_ = encodeFile(sess)
	}
}

// BenchmarkParse5k decodes a 5,000-event session file from memory.
func BenchmarkParse5k(b *testing.B) {
	data := encodeFile(benchSession(5000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("bench", data); err != nil {
			b.Fatal(err)
		}
	}
}
