package responses_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/responses"
	"github.com/openseek/openseek/protocol"
)

// sendOne streams req through a script server answering "ok" and returns
// the request body as generic JSON.
func sendOne(t *testing.T, req llm.Request) map[string]any {
	t.Helper()
	srv := newScriptServer(t, turn{text: "ok"})
	c := responses.New(responses.Config{BaseURL: srv.baseURL()})
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	return reqs[0]
}

func js(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func TestRequestShape(t *testing.T) {
	think := "I should call w"
	items := json.RawMessage(`[{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"gAAAA-secret"}]`)
	png := protocol.Part{Type: "image", MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}
	tests := []struct {
		name         string
		msgs         []chat.Message
		instructions any // nil = absent
		input        string
	}{{
		name:         "leading system messages become instructions",
		msgs:         []chat.Message{{Role: chat.System, Content: protocol.Text("be brief")}, {Role: chat.System, Content: protocol.Text("use tools")}, {Role: chat.User, Content: protocol.Text("hi")}},
		instructions: "be brief\n\nuse tools",
		input:        `[{"role":"user","content":[{"type":"input_text","text":"hi"}]}]`,
	}, {
		name:  "a later system message stays in place as developer",
		msgs:  []chat.Message{{Role: chat.User, Content: protocol.Text("hi")}, {Role: chat.System, Content: protocol.Text("note")}},
		input: `[{"role":"user","content":[{"type":"input_text","text":"hi"}]},{"role":"developer","content":[{"type":"input_text","text":"note"}]}]`,
	}, {
		name:  "user images are data URLs",
		msgs:  []chat.Message{{Role: chat.User, Content: protocol.Content{{Type: "text", Text: "look"}, png}}},
		input: `[{"role":"user","content":[{"type":"input_text","text":"look"},{"type":"input_image","detail":"auto","image_url":"data:image/png;base64,iVBORw=="}]}]`,
	}, {
		name: "reasoning items, then text, then calls, then paired outputs",
		msgs: []chat.Message{
			{Role: chat.User, Content: protocol.Text("weather?")},
			{Role: chat.Assistant, Content: protocol.Text("checking"), Reasoning: &think, ReasoningItems: items, ToolCalls: []chat.ToolCall{{ID: "call_a", Name: "w", Arguments: `{"city":"Florence"}`}, {ID: "call_b", Name: "w", Arguments: `{}`}}},
			{Role: chat.Tool, ToolCallID: "call_a", Content: protocol.Text("40 C")},
			{Role: chat.Tool, ToolCallID: "call_b", Content: protocol.Content{{Type: "text", Text: "map:"}, png}},
		},
		input: `[{"role":"user","content":[{"type":"input_text","text":"weather?"}]},
			{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"gAAAA-secret"},
			{"role":"assistant","content":"checking"},
			{"type":"function_call","call_id":"call_a","name":"w","arguments":"{\"city\":\"Florence\"}"},
			{"type":"function_call","call_id":"call_b","name":"w","arguments":"{}"},
			{"type":"function_call_output","call_id":"call_a","output":"40 C"},
			{"type":"function_call_output","call_id":"call_b","output":[{"type":"input_text","text":"map:"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw=="}]}]`,
	}, {
		name:  "an assistant message without text or reasoning is just its calls",
		msgs:  []chat.Message{{Role: chat.User, Content: protocol.Text("go")}, {Role: chat.Assistant, ToolCalls: []chat.ToolCall{{ID: "c", Name: "w", Arguments: `{}`}}}, {Role: chat.Tool, ToolCallID: "c", Content: protocol.Text("done")}},
		input: `[{"role":"user","content":[{"type":"input_text","text":"go"}]},{"type":"function_call","call_id":"c","name":"w","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"done"}]`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sendOne(t, llm.Request{Model: "gpt-5", Messages: tc.msgs})
			if !reflect.DeepEqual(got["instructions"], tc.instructions) {
				t.Errorf("instructions %#v, want %#v", got["instructions"], tc.instructions)
			}
			if want := js(t, tc.input); !reflect.DeepEqual(got["input"], want) {
				g, _ := json.Marshal(got["input"])
				t.Errorf("input\n got %s\nwant %s", g, tc.input)
			}
			if got["store"] != false || got["stream"] != true || !reflect.DeepEqual(got["include"], js(t, `["reasoning.encrypted_content"]`)) {
				t.Errorf("store/stream/include: %v %v %v", got["store"], got["stream"], got["include"])
			}
		})
	}
}

func TestRequestThinkingToolsAndLimits(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":12345678901234567890}},"required":["n"]}`)
	tests := []struct {
		thinking  string
		reasoning any
	}{
		{"", nil},
		{"no", js(t, `{"effort":"minimal","summary":"auto"}`)},
		{"high", js(t, `{"effort":"medium","summary":"auto"}`)},
		{"max", js(t, `{"effort":"high","summary":"auto"}`)},
	}
	for _, tc := range tests {
		t.Run("thinking="+tc.thinking, func(t *testing.T) {
			got := sendOne(t, llm.Request{Model: "gpt-5", Thinking: tc.thinking, MaxTokens: 4000,
				Messages: []chat.Message{{Role: chat.User, Content: protocol.Text("hi")}},
				Tools:    []llm.ToolSpec{{Name: "count", Description: "count <to> n", Parameters: schema}, {Name: "noargs"}}})
			if !reflect.DeepEqual(got["reasoning"], tc.reasoning) {
				t.Errorf("reasoning %v, want %v", got["reasoning"], tc.reasoning)
			}
			if got["max_output_tokens"] != 4000.0 || got["model"] != "gpt-5" {
				t.Errorf("max_output_tokens %v model %v", got["max_output_tokens"], got["model"])
			}
			want := js(t, `[{"type":"function","name":"count","description":"count <to> n","strict":false,
				"parameters":{"type":"object","properties":{"n":{"type":"integer","maximum":12345678901234567890}},"required":["n"]}},
				{"type":"function","name":"noargs","strict":false,"parameters":{"type":"object","properties":{}}}]`)
			if !reflect.DeepEqual(got["tools"], want) {
				g, _ := json.Marshal(got["tools"])
				t.Errorf("tools %s", g)
			}
		})
	}
}

// TestRequestBytesAreStable: the prompt cache needs the same conversation
// to encode to the same bytes every time, and a longer conversation to
// extend the shorter one's input.
func TestRequestBytesAreStable(t *testing.T) {
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, b)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, turn{text: "ok"}.events(1))
	}))
	defer srv.Close()
	c := responses.New(responses.Config{BaseURL: srv.URL})
	schema := json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"},"m":{"type":"string"}}}`)
	req := llm.Request{Model: "gpt-5", Thinking: "high",
		Tools:    []llm.ToolSpec{{Name: "t", Parameters: schema}},
		Messages: []chat.Message{{Role: chat.System, Content: protocol.Text("sys")}, {Role: chat.User, Content: protocol.Text("hi")}}}
	for range 5 {
		if _, err := c.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < len(bodies); i++ {
		if !bytes.Equal(bodies[i], bodies[0]) {
			t.Fatalf("request %d differs:\n%s\n%s", i, bodies[i], bodies[0])
		}
	}
	req.Messages = append(req.Messages, chat.Message{Role: chat.Assistant, Content: protocol.Text("ok")}, chat.Message{Role: chat.User, Content: protocol.Text("more")})
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	input := func(body []byte) string {
		var doc struct{ Input json.RawMessage }
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		return string(doc.Input)
	}
	short, long := input(bodies[0]), input(bodies[len(bodies)-1])
	if !strings.HasPrefix(long, strings.TrimSuffix(short, "]")) || len(long) <= len(short) {
		t.Errorf("the longer conversation does not extend the shorter one's input:\n%s\n%s", short, long)
	}
}

func TestRequestEncodingErrors(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"unknown role", llm.Request{Messages: []chat.Message{{Role: "robot"}}}, `unknown role "robot"`},
		{"reasoning items not an array", llm.Request{Messages: []chat.Message{{Role: chat.Assistant, ReasoningItems: json.RawMessage(`{"x":1}`)}}}, "not a JSON array"},
		{"tool schema not an object", llm.Request{Tools: []llm.ToolSpec{{Name: "bad", Parameters: json.RawMessage(`[1]`)}}}, "tool bad parameters"},
	}
	srv := newScriptServer(t)
	c := responses.New(responses.Config{BaseURL: srv.baseURL()})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Stream(context.Background(), tc.req, nil)
			var le *llm.Error
			if !errors.As(err, &le) || le.Retryable || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want a non-retryable error containing %q", err, tc.want)
			}
		})
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("%d requests sent for unencodable conversations", n)
	}
}
