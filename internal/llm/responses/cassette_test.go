package responses_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/cassette"
	"github.com/openseek/openseek/internal/llm/responses"
	"github.com/openseek/openseek/protocol"
)

// The go-vcr cassettes recorded by charmbracelet/fantasy against
// api.openai.com/v1/responses (see the README beside them), replayed
// through the client in order, one test per recorded suite.

func TestOpenAIResponsesCommon(t *testing.T) { cassette.Suite(t, "TestOpenAIResponsesCommon", replay) }
func TestOpenAIResponsesWithSummaryThinking(t *testing.T) {
	cassette.Suite(t, "TestOpenAIResponsesWithSummaryThinking", replay)
}

func replay(t *testing.T, file string) {
	c := cassette.Load(t, file)
	srv := cassette.Serve(t, c, func(_ int, r *http.Request) {
		if r.URL.Path != "/v1/responses" {
			t.Errorf("request to %s", r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
			t.Errorf("Authorization %q", got)
		}
	})
	client := responses.New(responses.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key"})

	var prev *llm.Response
	var prevWant expected
	for i, it := range c.Interactions {
		var rec recordedRequest
		if err := json.Unmarshal([]byte(it.Request.Body), &rec); err != nil {
			t.Fatalf("interaction %d: recorded request: %v", i, err)
		}
		req := rec.toRequest(t, prev)

		var text, reasoning strings.Builder
		resp, err := client.Stream(context.Background(), req, func(d llm.Delta) {
			switch d.Kind {
			case llm.TextDelta:
				text.WriteString(d.Text)
			case llm.ReasoningDelta:
				reasoning.WriteString(d.Text)
			}
		})
		if err != nil {
			t.Fatalf("interaction %d: %v", i, err)
		}
		want := foldEvents(t, it.Response.Body)
		if resp.Content != want.text || text.String() != want.text {
			t.Errorf("interaction %d text:\n got %q (deltas %q)\nwant %q", i, resp.Content, text.String(), want.text)
		}
		got := ""
		if resp.Reasoning != nil {
			got = *resp.Reasoning
		}
		if got != want.reasoning || reasoning.String() != want.reasoning || (resp.Reasoning != nil) != (want.reasoning != "") {
			t.Errorf("interaction %d reasoning:\n got %q (deltas %q)\nwant %q", i, got, reasoning.String(), want.reasoning)
		}
		if !reflect.DeepEqual(resp.ToolCalls, want.calls) {
			t.Errorf("interaction %d tool calls:\n got %+v\nwant %+v", i, resp.ToolCalls, want.calls)
		}
		if resp.Usage != want.usage {
			t.Errorf("interaction %d usage:\n got %+v\nwant %+v", i, resp.Usage, want.usage)
		}
		if resp.Model != want.model || resp.FinishReason != want.finish {
			t.Errorf("interaction %d model/finish: got %q/%q want %q/%q", i, resp.Model, resp.FinishReason, want.model, want.finish)
		}
		checkReasoningItems(t, i, resp.ReasoningItems, want.reasoningItems)
		checkSent(t, i, srv.Sent()[i], rec, prevWant)
		prev, prevWant = resp, want
	}
	if sent := srv.Sent(); len(sent) != len(c.Interactions) {
		t.Errorf("sent %d requests, recorded %d", len(sent), len(c.Interactions))
	}
}

// recordedRequest is the part of a recorded request body that drives ours.
type recordedRequest struct {
	Model           string          `json:"model"`
	MaxOutputTokens int             `json:"max_output_tokens"`
	Input           []recordedItem  `json:"input"`
	Tools           []recordedTool  `json:"tools"`
	Reasoning       *recordedEffort `json:"reasoning"`
	Instructions    string          `json:"instructions"`
	Store           *bool           `json:"store"`
	Include         []string        `json:"include"`
	Stream          bool            `json:"stream"`
}

type recordedEffort struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

type recordedItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Output           string          `json:"output"`
	ID               string          `json:"id"`
	EncryptedContent string          `json:"encrypted_content"`
}

// text reads a message's content, a string or a list of text parts.
func (it recordedItem) text() string {
	var s string
	if json.Unmarshal(it.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(it.Content, &parts)
	for _, p := range parts {
		s += p.Text
	}
	return s
}

type recordedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// modeFor inverts the client's documented Thinking mapping.
var modeFor = map[string]string{"minimal": "no", "medium": "high", "high": "max"}

// toRequest rebuilds the recorded conversation; the assistant turn comes
// from the client's own previous response, as in a real conversation.
func (r recordedRequest) toRequest(t *testing.T, prev *llm.Response) llm.Request {
	req := llm.Request{Model: r.Model, MaxTokens: r.MaxOutputTokens}
	if r.Reasoning != nil {
		req.Thinking = modeFor[r.Reasoning.Effort]
	}
	for _, tl := range r.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Name, Description: tl.Description, Parameters: tl.Parameters})
	}
	assistantDone := false
	for _, it := range r.Input {
		switch {
		case it.Role == "developer" || it.Role == "system":
			req.Messages = append(req.Messages, chat.Message{Role: chat.System, Content: protocol.Text(it.text())})
		case it.Role == "user":
			req.Messages = append(req.Messages, chat.Message{Role: chat.User, Content: protocol.Text(it.text())})
		case it.Type == "function_call" || it.Role == "assistant":
			if assistantDone {
				continue
			}
			if prev == nil {
				t.Fatal("recorded assistant item before any response")
			}
			assistantDone = true
			req.Messages = append(req.Messages, chat.Message{Role: chat.Assistant, Content: protocol.Text(prev.Content),
				ToolCalls: prev.ToolCalls, Reasoning: prev.Reasoning, ReasoningItems: prev.ReasoningItems})
		case it.Type == "function_call_output":
			req.Messages = append(req.Messages, chat.Message{Role: chat.Tool, Content: protocol.Text(it.Output), ToolCallID: it.CallID})
		default:
			t.Fatalf("unexpected recorded input item %+v", it)
		}
	}
	return req
}

// checkSent compares what the client sent with the recorded request. The
// recording sent its system prompt as a developer message and replayed no
// reasoning; ours sends instructions and the previous response's reasoning
// items (prevWant, from the recorded events) before its function calls.
func checkSent(t *testing.T, i int, body []byte, want recordedRequest, prevWant expected) {
	t.Helper()
	var got recordedRequest
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("request %d is not JSON: %v", i, err)
	}
	if !got.Stream || got.Store == nil || *got.Store || !reflect.DeepEqual(got.Include, []string{"reasoning.encrypted_content"}) {
		t.Errorf("request %d: stream %v store %v include %v", i, got.Stream, got.Store, got.Include)
	}
	if got.Model != want.Model || got.MaxOutputTokens != want.MaxOutputTokens {
		t.Errorf("request %d: model %q max %d, recorded %q %d", i, got.Model, got.MaxOutputTokens, want.Model, want.MaxOutputTokens)
	}
	if !reflect.DeepEqual(got.Reasoning, want.Reasoning) {
		t.Errorf("request %d reasoning: got %+v, recorded %+v", i, got.Reasoning, want.Reasoning)
	}
	// The recorded developer message is our instructions.
	wantItems := want.Input
	if len(wantItems) > 0 && wantItems[0].Role == "developer" {
		if got.Instructions != wantItems[0].text() {
			t.Errorf("request %d instructions %q, recorded %q", i, got.Instructions, wantItems[0].text())
		}
		wantItems = wantItems[1:]
	}
	var replayed []recordedItem
	gotItems := got.Input
	for _, it := range gotItems {
		if it.Type == "reasoning" {
			replayed = append(replayed, it)
		}
	}
	var rest []recordedItem
	for _, it := range gotItems {
		if it.Type != "reasoning" {
			rest = append(rest, it)
		}
	}
	if len(rest) != len(wantItems) {
		t.Fatalf("request %d: %d input items, recorded %d:\n%s", i, len(rest), len(wantItems), body)
	}
	for j, g := range rest {
		w := wantItems[j]
		if g.Type == "" {
			g.Type = "message"
		}
		if w.Type == "" {
			w.Type = "message"
		}
		if g.Type != w.Type || g.Role != w.Role || g.text() != w.text() || g.CallID != w.CallID || g.Name != w.Name || g.Arguments != w.Arguments || g.Output != w.Output {
			t.Errorf("request %d item %d:\n got %+v\nwant %+v", i, j, g, w)
		}
	}
	// Reasoning items from the previous response come back verbatim, in
	// order, before the calls they led to.
	if hasCalls(rest) {
		if !reflect.DeepEqual(ids(replayed), ids(prevWant.reasoningItems)) {
			t.Errorf("request %d replayed reasoning %v, previous response had %v", i, ids(replayed), ids(prevWant.reasoningItems))
		}
		for k, r := range replayed {
			if r.EncryptedContent != prevWant.reasoningItems[k].EncryptedContent {
				t.Errorf("request %d reasoning item %s: encrypted content differs", i, r.ID)
			}
		}
		if len(replayed) > 0 && gotItems[len(gotItems)-len(rest)+firstCall(rest)-1].Type != "reasoning" {
			t.Errorf("request %d: reasoning items do not precede the function calls:\n%s", i, body)
		}
	} else if len(replayed) > 0 {
		t.Errorf("request %d replays reasoning with no assistant turn", i)
	}
	if len(got.Tools) != len(want.Tools) {
		t.Fatalf("request %d: %d tools, recorded %d", i, len(got.Tools), len(want.Tools))
	}
	for j, tl := range got.Tools {
		w := want.Tools[j]
		if tl.Name != w.Name || tl.Description != w.Description || !jsonEqual(tl.Parameters, w.Parameters) {
			t.Errorf("request %d tool %d: got %s %s, recorded %s %s", i, j, tl.Name, tl.Parameters, w.Name, w.Parameters)
		}
	}
}

func hasCalls(items []recordedItem) bool { return firstCall(items) >= 0 }

func firstCall(items []recordedItem) int {
	for i, it := range items {
		if it.Type == "function_call" {
			return i
		}
	}
	return -1
}

func ids(items []recordedItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

func checkReasoningItems(t *testing.T, i int, raw json.RawMessage, want []recordedItem) {
	t.Helper()
	if len(want) == 0 {
		if raw != nil {
			t.Errorf("interaction %d: reasoning items %s, recorded none", i, raw)
		}
		return
	}
	var got []recordedItem
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("interaction %d: reasoning items %q: %v", i, raw, err)
	}
	if len(got) != len(want) {
		t.Fatalf("interaction %d: %d reasoning items, recorded %d", i, len(got), len(want))
	}
	for k := range got {
		if got[k].Type != "reasoning" || got[k].ID != want[k].ID || got[k].EncryptedContent != want[k].EncryptedContent || want[k].EncryptedContent == "" {
			t.Errorf("interaction %d reasoning item %d: got %s/%s, recorded %s", i, k, got[k].Type, got[k].ID, want[k].ID)
		}
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// expected is the test's own reading of a recorded event stream, written
// against generic JSON and the API's ".done" summaries rather than the
// deltas the client folds, so that it shares nothing with the client.
type expected struct {
	text, reasoning string
	calls           []chat.ToolCall
	reasoningItems  []recordedItem
	usage           protocol.Usage
	model, finish   string
}

func foldEvents(t testing.TB, body string) expected {
	t.Helper()
	var e expected
	var summaries []string
	var argDeltas = map[string]string{}
	completed := false
	for _, line := range strings.Split(body, "\n") {
		payload, ok := strings.CutPrefix(line, "data:")
		if !ok || strings.TrimSpace(payload) == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(payload), &ev); err != nil {
			t.Fatalf("recorded event is not JSON: %v: %s", err, payload)
		}
		switch ev["type"] {
		case "response.output_text.done":
			e.text += ev["text"].(string)
		case "response.reasoning_summary_text.done":
			summaries = append(summaries, ev["text"].(string))
		case "response.function_call_arguments.delta":
			argDeltas[ev["item_id"].(string)] += ev["delta"].(string)
		case "response.output_item.done":
			item := ev["item"].(map[string]any)
			if enc, _ := item["encrypted_content"].(string); item["type"] == "reasoning" && enc != "" {
				// Reasoning items are replayable only with their
				// encrypted content (the Common suite did not ask for it).
				e.reasoningItems = append(e.reasoningItems, recordedItem{Type: "reasoning", ID: item["id"].(string), EncryptedContent: enc})
			}
			if item["type"] == "function_call" {
				c := chat.ToolCall{ID: item["call_id"].(string), Name: item["name"].(string), Arguments: item["arguments"].(string)}
				if d := argDeltas[item["id"].(string)]; d != c.Arguments {
					t.Fatalf("recording: argument deltas %q do not add up to %q", d, c.Arguments)
				}
				e.calls = append(e.calls, c)
			}
		case "response.completed":
			completed = true
			resp := ev["response"].(map[string]any)
			e.model = resp["model"].(string)
			u := resp["usage"].(map[string]any)
			num := func(m map[string]any, k string) int { v, _ := m[k].(float64); return int(v) }
			e.usage.PromptTokens = num(u, "input_tokens")
			e.usage.CompletionTokens = num(u, "output_tokens")
			e.usage.TotalTokens = num(u, "total_tokens")
			e.usage.PromptCacheHitTokens = num(u["input_tokens_details"].(map[string]any), "cached_tokens")
			e.usage.PromptCacheMissTokens = e.usage.PromptTokens - e.usage.PromptCacheHitTokens
			var final []string
			for _, o := range resp["output"].([]any) {
				if o := o.(map[string]any); o["type"] == "reasoning" && o["encrypted_content"] != nil {
					final = append(final, o["id"].(string))
				}
			}
			// The final output re-encrypts each item (Fernet tokens carry a
			// timestamp); only the ids must agree with the finished items.
			if !reflect.DeepEqual(final, ids(e.reasoningItems)) {
				t.Fatalf("recording: reasoning items %v in the final output, %v finished", final, ids(e.reasoningItems))
			}
		}
	}
	if !completed {
		t.Fatal("recording has no response.completed")
	}
	e.reasoning = strings.Join(summaries, "\n\n")
	e.finish = "stop"
	if len(e.calls) > 0 {
		e.finish = "tool_calls"
	}
	if e.usage.PromptTokens == 0 || e.usage.CompletionTokens == 0 {
		t.Errorf("recorded usage looks empty: %+v", e.usage)
	}
	return e
}
