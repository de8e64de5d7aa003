package session

import (
	"reflect"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

func TestEventRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		item Item
		line string
	}{
		{"user text", &User{Content: protocol.Text("hi <b> & \"q\"\n\t\u2028")},
			`{"kind":"user","payload":{"content":"hi <b> & \"q\"\n\t` + "\u2028" + `"}}`},
		{"user parts", &User{Content: protocol.Content{{Type: "text", Text: "see"}, {Type: "image", MediaType: "image/png", Data: pngBytes}}, SubmissionID: ptr("s1")},
			`{"kind":"user","payload":{"content":[{"type":"text","text":"see"},{"type":"image","media_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUg=="}],"submission_id":"s1"}}`},
		{"user empty content", &User{Content: protocol.Content{}},
			`{"kind":"user","payload":{"content":[]}}`},
		{"assistant full", &Assistant{Content: "done", ToolCalls: []chat.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"cmd":"ls"}`}}, Reasoning: ptr(""), IsReplay: true, Usage: &protocol.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3, PromptCacheHitTokens: 4, PromptCacheMissTokens: 5}},
			`{"kind":"assistant","payload":{"content":"done","tool_calls":[{"id":"c1","name":"shell","arguments":"{\"cmd\":\"ls\"}"}],"reasoning_content":"","is_replay":true,"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_cache_hit_tokens":4,"prompt_cache_miss_tokens":5}}}`},
		{"tool result data order kept", &ToolResult{ToolCallID: "c1", ToolName: "shell", Content: protocol.Text("ok"), Data: []byte(`{"z":1, "a":[true,null]}`)},
			`{"kind":"tool_result","payload":{"tool_call_id":"c1","tool_name":"shell","content":"ok","is_error":false,"data":{"z":1, "a":[true,null]}}}`},
		{"notice", &Notice{Content: "[goal]\nship it"},
			`{"kind":"runtime_notice","payload":{"content":"[goal]\nship it"}}`},
		{"summary", &Summary{Content: "s", From: 1, To: 3},
			`{"kind":"summary","payload":{"content":"s","from_sequence":1,"to_sequence":3}}`},
		{"finished", &Terminal{Kind: Finished, Message: "answer"},
			`{"kind":"terminal","payload":{"kind":"finished","message":"answer"}}`},
		{"finished verbatim", &Terminal{Kind: Finished, Message: "[context ceiling] echoed on request"},
			`{"kind":"terminal","payload":{"kind":"finished","message":"[context ceiling] echoed on request","verbatim":true}}`},
		{"failed verbatim", &Terminal{Kind: Failed, Message: "max steps exhausted"},
			`{"kind":"terminal","payload":{"kind":"failed","message":"max steps exhausted","verbatim":true}}`},
		{"context yield", &Terminal{Kind: ContextYield, Message: "[context ceiling] checkpointed"},
			`{"kind":"terminal","payload":{"kind":"context_yield","message":"[context ceiling] checkpointed"}}`},
		{"context yield legacy", &Terminal{Kind: ContextYield, Message: "[context ceiling] checkpointed", Legacy: true},
			`{"kind":"terminal","payload":{"kind":"finished","message":"[context ceiling] checkpointed"}}`},
		{"max steps", &Terminal{Kind: MaxStepsExhausted},
			`{"kind":"terminal","payload":{"kind":"max_steps_exhausted"}}`},
		{"max steps legacy", &Terminal{Kind: MaxStepsExhausted, Legacy: true},
			`{"kind":"terminal","payload":{"kind":"failed","message":"max steps exhausted"}}`},
		{"aborted", &Terminal{Kind: Aborted, Message: "why"},
			`{"kind":"terminal","payload":{"kind":"aborted","message":"why"}}`},
		{"interrupted", &Terminal{Kind: Interrupted, Message: "cancelled"},
			`{"kind":"terminal","payload":{"kind":"interrupted","message":"cancelled"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := Event{Sequence: 7, TS: 1758700000123, Item: tt.item}
			line := `{"sequence":7,"ts":1758700000123,"item":` + tt.line + `}`
			if got := string(MarshalEvent(ev)); got != line {
				t.Fatalf("MarshalEvent:\n got %s\nwant %s", got, line)
			}
			back, err := ParseEvent([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, ev) {
				t.Fatalf("ParseEvent = %#v, want %#v", back.Item, ev.Item)
			}
		})
	}
}

func TestParseEventAccepts(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Item
		ts   int64
	}{
		{"integral double ts", `{"sequence":1,"ts":1.758700001e12,"item":{"kind":"runtime_notice","payload":{"content":"x"}}}`, &Notice{Content: "x"}, 1758700001000},
		{"unknown payload keys ignored", `{"sequence":1,"ts":0,"item":{"kind":"runtime_notice","payload":{"content":"x","extra":{"a":1}}}}`, &Notice{Content: "x"}, 0},
		{"array content single text stays a part list", `{"sequence":1,"ts":0,"item":{"kind":"user","payload":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}}`,
			&User{Content: protocol.Content{{Type: "text", Text: "a"}, {Type: "text", Text: "b"}}}, 0},
		{"explicit verbatim false keeps legacy reading off", `{"sequence":1,"ts":0,"item":{"kind":"terminal","payload":{"kind":"failed","message":"max steps exhausted","verbatim":false}}}`,
			&Terminal{Kind: Failed, Message: "max steps exhausted"}, 0},
		{"null optional fields are absent", `{"sequence":1,"ts":0,"item":{"kind":"assistant","payload":{"content":"","tool_calls":[],"reasoning_content":null,"usage":null}}}`,
			&Assistant{ToolCalls: []chat.ToolCall{}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := ParseEvent([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(e.Item, tt.want) || e.TS != tt.ts {
				t.Fatalf("got %#v ts %d, want %#v ts %d", e.Item, e.TS, tt.want, tt.ts)
			}
		})
	}
}

func TestParseEventRejects(t *testing.T) {
	tests := []struct {
		name, line, err string
	}{
		{"unknown kind", `{"sequence":1,"ts":0,"item":{"kind":"bogus","payload":{}}}`, "unknown session item kind: bogus"},
		{"missing item", `{"sequence":1,"ts":0}`, "missing field `item`"},
		{"missing sequence", `{"ts":0,"item":{"kind":"user","payload":{"content":"x"}}}`, "missing field `sequence`"},
		{"missing ts", `{"sequence":1,"item":{"kind":"user","payload":{"content":"x"}}}`, "missing field `ts`"},
		{"fractional ts", `{"sequence":1,"ts":1.5,"item":{"kind":"user","payload":{"content":"x"}}}`, "invalid ts"},
		{"missing payload", `{"sequence":1,"ts":0,"item":{"kind":"user"}}`, "missing field `payload`"},
		{"missing content", `{"sequence":1,"ts":0,"item":{"kind":"user","payload":{}}}`, "missing field `content`"},
		{"assistant without tool_calls", `{"sequence":1,"ts":0,"item":{"kind":"assistant","payload":{"content":""}}}`, "missing field `tool_calls`"},
		{"tool result without is_error", `{"sequence":1,"ts":0,"item":{"kind":"tool_result","payload":{"tool_call_id":"a","tool_name":"b","content":"c"}}}`, "missing field `is_error`"},
		{"summary without range", `{"sequence":1,"ts":0,"item":{"kind":"summary","payload":{"content":"c","from_sequence":1}}}`, "missing field `to_sequence`"},
		{"terminal unknown kind", `{"sequence":1,"ts":0,"item":{"kind":"terminal","payload":{"kind":"exploded","message":"x"}}}`, "unknown terminal kind: exploded"},
		{"context yield without message", `{"sequence":1,"ts":0,"item":{"kind":"terminal","payload":{"kind":"context_yield"}}}`, "missing field `message`"},
		{"finished without message", `{"sequence":1,"ts":0,"item":{"kind":"terminal","payload":{"kind":"finished"}}}`, "missing field `message`"},
		{"non-boolean verbatim", `{"sequence":1,"ts":0,"item":{"kind":"terminal","payload":{"kind":"finished","message":"x","verbatim":"yes"}}}`, "verbatim"},
		{"content not string or array", `{"sequence":1,"ts":0,"item":{"kind":"user","payload":{"content":5}}}`, "content must be a string or an array of parts"},
		{"unknown part type", `{"sequence":1,"ts":0,"item":{"kind":"user","payload":{"content":[{"type":"audio"}]}}}`, "unknown content part type: audio"},
		{"bad base64", `{"sequence":1,"ts":0,"item":{"kind":"user","payload":{"content":[{"type":"image","media_type":"image/png","data":"!!"}]}}}`, "image part data"},
		{"not json", `{"sequence":1,`, "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEvent([]byte(tt.line))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.err)
			}
		})
	}
}

func TestMarshalEventReplacesInvalidUTF8(t *testing.T) {
	got := string(MarshalEvent(Event{Sequence: 1, Item: &Notice{Content: "a\xffb\x01"}}))
	want := `{"sequence":1,"ts":0,"item":{"kind":"runtime_notice","payload":{"content":"a\ufffdb\u0001"}}}`
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
