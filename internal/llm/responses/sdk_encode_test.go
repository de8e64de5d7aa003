package responses

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/protocol"
)

// TestEncodingMatchesSDK: our request types write, byte for byte, what
// openai-go's param types wrote for the same request, with and without a
// PrefixCache, for requests that use every shape the client sends.
func TestEncodingMatchesSDK(t *testing.T) {
	png := protocol.Part{Type: "image", MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")}
	items := json.RawMessage(`[ {"type":"reasoning", "id":"rs_1","summary":[ {"type":"summary_text","text":"plan <b> & \u2028"} ],"encrypted_content":"gAAAA=="},
		{"z":1,"a":[1.50, 2e3],"m":{"y":null,"b":"<&>"}} ]`)
	think := "thought"
	schema := json.RawMessage(`{"type":"object", "properties":{"path":{"type":"string","description":"a <file> & more"},"n":{"type":"integer","maximum":12345678901234567890}},
		"required":["path"], "additionalProperties":false, "$defs":{}}`)
	tools := []llm.ToolSpec{
		{Name: "read", Description: "reads <a> file & more \u2028", Parameters: schema},
		{Name: "noargs"},
		{Name: "blank", Parameters: json.RawMessage(" \n")},
		{Name: "empty", Description: "", Parameters: json.RawMessage(`{}`)},
		{Name: "dup", Parameters: json.RawMessage(`{"type":"object","type":"string"}`)},
	}
	rich := []chat.Message{
		{Role: chat.System, Content: protocol.Text("You are <agent> & \"terse\".\u2028\u2029\x01\x7f")},
		{Role: chat.System, Content: protocol.Text("second system part")},
		{Role: chat.User, Content: protocol.Content{{Type: "text", Text: "look at this \xff\xfe"}, png, {Type: "text", Text: ""}}},
		{Role: chat.Assistant, Content: protocol.Text("checking <now>"), Reasoning: &think, ReasoningItems: items,
			ToolCalls: []chat.ToolCall{{ID: "call_a", Name: "read", Arguments: `{"path":"a&b/<c>.go"}`}, {ID: "call_b", Name: "noargs", Arguments: ""}}},
		{Role: chat.Tool, ToolCallID: "call_a", Content: protocol.Text("package main\n\tfunc main() {}\n\x00\b\f")},
		{Role: chat.Tool, ToolCallID: "call_b", Content: protocol.Content{{Type: "text", Text: "map:"}, png}},
		{Role: chat.Tool, ToolCallID: "", Content: protocol.Content{png}},
		{Role: chat.Tool, ToolCallID: "call_c"},
		{Role: chat.System, Content: protocol.Text("a later system message")},
		{Role: chat.User},
		{Role: chat.Assistant},
		{Role: chat.Assistant, ReasoningItems: json.RawMessage(" ")},
		{Role: chat.Assistant, ReasoningItems: json.RawMessage("[]"), Content: protocol.Text("🙂 done")},
		{Role: chat.User, Content: protocol.Text("\x00input\x00")},
	}
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"empty", llm.Request{}},
		{"only system messages", llm.Request{Model: "gpt-5", Messages: rich[:2]}},
		{"rich, thinking high", llm.Request{Model: "gpt-5", Thinking: "high", MaxTokens: 32000, Messages: rich, Tools: tools}},
		{"rich, thinking no", llm.Request{Model: "o4-mini <&>", Thinking: "no", Messages: rich, Tools: tools[:1]}},
		{"rich, thinking max", llm.Request{Model: "gpt-5", Thinking: "max", MaxTokens: -1, Messages: rich}},
		{"rich, unknown thinking mode", llm.Request{Model: "gpt-5", Thinking: "medium", Messages: rich[2:]}},
		{"no leading system message", llm.Request{Model: "gpt-5", Messages: rich[3:], Tools: tools[1:2]}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := referenceEncode(t, tc.req)
			got, err := encodeRequest(tc.req)
			if err != nil || !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("(%v)\n got %s\nwant %s", err, got.Bytes(), want)
			}
			if got.Len() != len(want) {
				t.Errorf("Len %d, %d bytes", got.Len(), len(want))
			}
			cached := tc.req
			cached.Cache = llm.NewPrefixCache()
			for _, stable := range []int{len(tc.req.Messages), len(tc.req.Messages) / 2, len(tc.req.Messages)} {
				cached.Stable = stable
				got, err := encodeRequest(cached)
				if err != nil || !bytes.Equal(got.Bytes(), want) {
					t.Fatalf("cached, stable %d (%v):\n got %s\nwant %s", stable, err, got.Bytes(), want)
				}
			}
		})
	}
}

// FuzzEncodingMatchesSDK: for any text, names, schema and reasoning
// items, our encoding is the SDK's, and fails where the SDK's failed.
func FuzzEncodingMatchesSDK(f *testing.F) {
	f.Add("gpt-5", "be <brief>", "hi & \u2028", "read", "reads <a>", `{"type":"object","properties":{"b":{},"a":1}}`, `[{"type":"reasoning","id":"r","summary":[]}]`, "high", `{"x":"<"}`)
	f.Add("", "", "\xff", "", "", "", "", "", "")
	f.Add("m", "s", "\x00\b\f\t\n\r\"\\/", "t", "", `{ "z" : [ 1 , 2.50e1 ] }`, `[ 1, "a", null ]`, "no", "")
	f.Fuzz(func(t *testing.T, model, system, text, tool, desc, schema, reasoning, thinking, args string) {
		req := llm.Request{Model: model, Thinking: thinking, MaxTokens: len(text),
			Messages: []chat.Message{
				{Role: chat.System, Content: protocol.Text(system)},
				{Role: chat.User, Content: protocol.Content{{Type: "text", Text: text}, {Type: "image", MediaType: desc, Data: []byte(text)}}},
				{Role: chat.Assistant, Content: protocol.Text(text), ReasoningItems: json.RawMessage(reasoning), ToolCalls: []chat.ToolCall{{ID: desc, Name: tool, Arguments: args}}},
				{Role: chat.Tool, ToolCallID: desc, Content: protocol.Text(text)},
				{Role: chat.Tool, ToolCallID: tool, Content: protocol.Content{{Type: "text", Text: system}, {Type: "image", MediaType: model, Data: []byte(args)}}},
			},
			Tools: []llm.ToolSpec{{Name: tool, Description: desc, Parameters: json.RawMessage(schema)}}}
		want, wantErr := sdkEncode(req)
		got, err := encodeRequest(req)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, the SDK's %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("\n got %s\nwant %s", got.Bytes(), want)
		}
	})
}
