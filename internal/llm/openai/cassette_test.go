package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/cassette"
	"github.com/openseek/openseek/internal/llm/openai"
	"github.com/openseek/openseek/protocol"
)

// The go-vcr cassettes recorded by charmbracelet/fantasy (see the README
// beside them) replayed through the client, one test per recorded suite.

func TestOpenAICommon(t *testing.T)  { cassette.Suite(t, "TestOpenAICommon", replay) }
func TestAzureThinking(t *testing.T) { cassette.Suite(t, "TestAzureThinking", replay) }
func TestOpenAICompatibleCommon(t *testing.T) {
	cassette.Suite(t, "TestOpenAICompatibleCommon", replay)
}
func TestOpenAICompatibleThinking(t *testing.T) {
	cassette.Suite(t, "TestOpenAICompatibleThinking", replay)
}
func TestOpenRouterCommon(t *testing.T)   { cassette.Suite(t, "TestOpenRouterCommon", replay) }
func TestOpenRouterThinking(t *testing.T) { cassette.Suite(t, "TestOpenRouterThinking", replay) }

func replay(t *testing.T, file string) {
	c := cassette.Load(t, file)
	srv := cassette.Serve(t, c, nil)
	client := openai.New(openai.Config{URL: srv.URL + "/v1/chat/completions", APIKey: "test-key"})

	var prev *llm.Response
	for i, it := range c.Interactions {
		var recReq recordedRequest
		if err := json.Unmarshal([]byte(it.Request.Body), &recReq); err != nil {
			t.Fatalf("interaction %d: recorded request: %v", i, err)
		}
		req := recReq.toRequest(t, prev)

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
		want := foldSSE(t, it.Response.Body)
		if resp.Content != want.text || text.String() != want.text {
			t.Errorf("interaction %d text:\n got %q (deltas %q)\nwant %q", i, resp.Content, text.String(), want.text)
		}
		gotReasoning := ""
		if resp.Reasoning != nil {
			gotReasoning = *resp.Reasoning
		}
		if gotReasoning != want.reasoning || reasoning.String() != want.reasoning || (resp.Reasoning != nil) != want.sawReasoning {
			t.Errorf("interaction %d reasoning:\n got %q (deltas %q, set %v)\nwant %q", i, gotReasoning, reasoning.String(), resp.Reasoning != nil, want.reasoning)
		}
		if !reflect.DeepEqual(resp.ToolCalls, want.calls) {
			t.Errorf("interaction %d tool calls:\n got %+v\nwant %+v", i, resp.ToolCalls, want.calls)
		}
		for _, tc := range resp.ToolCalls {
			if !json.Valid([]byte(tc.Arguments)) {
				t.Errorf("interaction %d: call %s arguments are not JSON: %q", i, tc.ID, tc.Arguments)
			}
		}
		var gotDetails []map[string]any
		if resp.ReasoningItems != nil {
			if err := json.Unmarshal(resp.ReasoningItems, &gotDetails); err != nil {
				t.Fatalf("interaction %d: reasoning items are not a JSON array: %v: %s", i, err, resp.ReasoningItems)
			}
		}
		if !reflect.DeepEqual(gotDetails, want.details) {
			t.Errorf("interaction %d reasoning_details:\n got %s\nwant %v", i, resp.ReasoningItems, want.details)
		}
		if resp.Usage != want.usage {
			t.Errorf("interaction %d usage:\n got %+v\nwant %+v", i, resp.Usage, want.usage)
		}
		if resp.FinishReason != want.finish || resp.Model != want.model {
			t.Errorf("interaction %d finish/model: got %q/%q want %q/%q", i, resp.FinishReason, resp.Model, want.finish, want.model)
		}
		if i+1 < len(c.Interactions) {
			checkEcho(t, resp, c.Interactions[i+1].Request.Body)
		}
		prev = resp
	}
	sent := srv.Sent()
	if len(sent) != len(c.Interactions) {
		t.Errorf("sent %d requests, recorded %d", len(sent), len(c.Interactions))
	}
	for i, body := range sent {
		checkSent(t, i, body, c.Interactions[i].Request.Body)
	}
}

// recordedRequest is the part of a recorded request body that drives ours.
type recordedRequest struct {
	Model               string          `json:"model"`
	Messages            []recordedMsg   `json:"messages"`
	Tools               []recordedTool  `json:"tools"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	ReasoningEffort     string          `json:"reasoning_effort"`
	Reasoning           json.RawMessage `json:"reasoning"`
}

type recordedMsg struct {
	Role             string          `json:"role"`
	Content          string          `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
	ToolCallID       string          `json:"tool_call_id"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type recordedTool struct {
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// toRequest rebuilds the recorded request; the assistant turn comes from
// the client's own previous response, as in a real conversation.
func (r recordedRequest) toRequest(t *testing.T, prev *llm.Response) llm.Request {
	req := llm.Request{Model: r.Model, MaxTokens: max(r.MaxTokens, r.MaxCompletionTokens)}
	if r.ReasoningEffort != "" || len(r.Reasoning) > 0 {
		req.Thinking = "high"
	}
	for _, tl := range r.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Function.Name, Description: tl.Function.Description, Parameters: tl.Function.Parameters})
	}
	for _, m := range r.Messages {
		switch m.Role {
		case "assistant":
			if prev == nil {
				t.Fatal("recorded assistant message before any response")
			}
			req.Messages = append(req.Messages, chat.Message{Role: chat.Assistant, Content: protocol.Text(prev.Content), ToolCalls: prev.ToolCalls, Reasoning: prev.Reasoning, ReasoningItems: prev.ReasoningItems})
		case "tool":
			req.Messages = append(req.Messages, chat.Message{Role: chat.Tool, Content: protocol.Text(m.Content), ToolCallID: m.ToolCallID})
		default:
			req.Messages = append(req.Messages, chat.Message{Role: chat.Role(m.Role), Content: protocol.Text(m.Content)})
		}
	}
	return req
}

// checkEcho compares the client's response with the assistant message the
// recording client sent back in the next request.
func checkEcho(t *testing.T, resp *llm.Response, nextBody string) {
	t.Helper()
	var next recordedRequest
	if err := json.Unmarshal([]byte(nextBody), &next); err != nil {
		t.Fatal(err)
	}
	for _, m := range next.Messages {
		if m.Role != "assistant" {
			continue
		}
		if len(m.ToolCalls) != len(resp.ToolCalls) {
			t.Fatalf("recorded %d tool calls, client got %d", len(m.ToolCalls), len(resp.ToolCalls))
		}
		for i, c := range m.ToolCalls {
			got := resp.ToolCalls[i]
			if got.ID != c.ID || got.Name != c.Function.Name || got.Arguments != c.Function.Arguments {
				t.Errorf("tool call %d: got %+v, recorded %s %s %s", i, got, c.ID, c.Function.Name, c.Function.Arguments)
			}
		}
		// Avian's recordings echo fewer whitespace-only deltas than they
		// streamed, so only a non-blank echo is comparable.
		if strings.TrimSpace(m.Content) != "" && m.Content != resp.Content {
			t.Errorf("assistant content: got %q, recorded %q", resp.Content, m.Content)
		}
		if m.ReasoningContent != nil && (resp.Reasoning == nil || *resp.Reasoning != *m.ReasoningContent) {
			t.Errorf("reasoning: got %v, recorded %q", resp.Reasoning, *m.ReasoningContent)
		}
		if m.ReasoningDetails != nil {
			if err := sameDetails(resp.ReasoningItems, m.ReasoningDetails); err != nil {
				t.Errorf("reasoning_details of the response vs the recorded echo: %v", err)
			}
		}
	}
}

// checkSent compares what the client sent with the recorded request:
// same model and messages (role, content, calls), tools, and
// reasoning_content on every assistant message with tool calls.
func checkSent(t *testing.T, i int, body []byte, recordedBody string) {
	t.Helper()
	var got, want recordedRequest
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("request %d is not JSON: %v", i, err)
	}
	if err := json.Unmarshal([]byte(recordedBody), &want); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	_ = json.Unmarshal(body, &raw)
	if raw["stream"] != true {
		t.Errorf("request %d: stream is %v", i, raw["stream"])
	}
	if got.Model != want.Model || len(got.Messages) != len(want.Messages) || len(got.Tools) != len(want.Tools) {
		t.Fatalf("request %d: model/messages/tools %s/%d/%d, recorded %s/%d/%d", i, got.Model, len(got.Messages), len(got.Tools), want.Model, len(want.Messages), len(want.Tools))
	}
	for j, m := range got.Messages {
		w := want.Messages[j]
		blankEcho := m.Role == "assistant" && strings.TrimSpace(w.Content) == ""
		if m.Role != w.Role || (m.Content != w.Content && !blankEcho) || m.ToolCallID != w.ToolCallID || len(m.ToolCalls) != len(w.ToolCalls) {
			t.Errorf("request %d message %d: got %+v, recorded %+v", i, j, m, w)
		}
		if len(m.ToolCalls) > 0 && m.ReasoningContent == nil {
			t.Errorf("request %d message %d: tool-call turn without reasoning_content", i, j)
		}
		if w.ReasoningContent != nil && (m.ReasoningContent == nil || *m.ReasoningContent != *w.ReasoningContent) {
			t.Errorf("request %d message %d: reasoning_content differs from the recording", i, j)
		}
		if w.ReasoningDetails != nil {
			if err := sameDetails(m.ReasoningDetails, w.ReasoningDetails); err != nil {
				t.Errorf("request %d message %d: reasoning_details: %v", i, j, err)
			}
		}
	}
	for j, tl := range got.Tools {
		w := want.Tools[j].Function
		if tl.Function.Name != w.Name || !jsonEqual(tl.Function.Parameters, w.Parameters) {
			t.Errorf("request %d tool %d: got %s %s, recorded %s %s", i, j, tl.Function.Name, tl.Function.Parameters, w.Name, w.Parameters)
		}
	}
	if want.ReasoningEffort != "" && raw["reasoning_effort"] == nil {
		t.Errorf("request %d: recorded reasoning_effort %q, client sent none", i, want.ReasoningEffort)
	}
}

// sameDetails compares reasoning_details items with the ones the recording
// client sent back. Items carrying a signature (Claude) must match exactly,
// byte for byte.
// For the others fantasy's echo lost the item's first text fragment (its
// GLM and Kimi recordings echo " user wants…" for a streamed "The user
// wants…"), so there the recorded text need only end ours.
func sameDetails(got, recorded json.RawMessage) error {
	var g, r []map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		return fmt.Errorf("ours are not a JSON array: %v: %s", err, got)
	}
	if err := json.Unmarshal(recorded, &r); err != nil {
		return err
	}
	if len(g) != len(r) {
		return fmt.Errorf("%d items, recorded %d:\n got %s\nwant %s", len(g), len(r), got, recorded)
	}
	signed := false
	for _, it := range r {
		_, ok := it["signature"]
		signed = signed || ok
	}
	if signed && string(got) != string(recorded) {
		// Both encode each item with sorted keys, so the bytes agree too.
		return fmt.Errorf("bytes differ:\n got %s\nwant %s", got, recorded)
	}
	for i := range g {
		if _, signed := r[i]["signature"]; signed {
			if !reflect.DeepEqual(g[i], r[i]) {
				return fmt.Errorf("item %d:\n got %v\nwant %v", i, g[i], r[i])
			}
			continue
		}
		gt, _ := g[i]["text"].(string)
		rt, _ := r[i]["text"].(string)
		if !strings.HasSuffix(gt, rt) || rt == "" {
			return fmt.Errorf("item %d text %q does not end with the recorded %q", i, gt, rt)
		}
		gc, rc := maps.Clone(g[i]), maps.Clone(r[i])
		delete(gc, "text")
		delete(rc, "text")
		if !reflect.DeepEqual(gc, rc) {
			return fmt.Errorf("item %d:\n got %v\nwant %v", i, g[i], r[i])
		}
	}
	return nil
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// expected is the test's own fold of a recorded SSE body, written against
// generic JSON so that it shares nothing with the client's decoding.
type expected struct {
	text, reasoning string
	sawReasoning    bool
	details         []map[string]any // reasoning_details items, merged
	calls           []chat.ToolCall
	usage           protocol.Usage
	finish, model   string
}

func foldSSE(t *testing.T, body string) expected {
	t.Helper()
	var e expected
	byIndex := map[int]int{}
	var lastUsage map[string]any
	for _, line := range strings.Split(body, "\n") {
		payload, ok := strings.CutPrefix(line, "data:")
		payload = strings.TrimSpace(payload)
		if !ok || payload == "[DONE]" || payload == "" {
			continue
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(payload), &c); err != nil {
			t.Fatalf("recorded chunk is not JSON: %v: %s", err, payload)
		}
		if m, _ := c["model"].(string); m != "" && e.model == "" {
			e.model = m
		}
		if u, ok := c["usage"].(map[string]any); ok {
			lastUsage = u
		}
		choices, _ := c["choices"].([]any)
		for _, ch := range choices {
			ch := ch.(map[string]any)
			d, _ := ch["delta"].(map[string]any)
			r, _ := d["reasoning_content"].(string)
			if r == "" {
				r, _ = d["reasoning"].(string)
			}
			if r != "" {
				e.reasoning += r
				e.sawReasoning = true
			}
			e.addDetails(d["reasoning_details"])
			if s, _ := d["content"].(string); s != "" {
				e.text += s
			}
			tcs, _ := d["tool_calls"].([]any)
			for _, tc := range tcs {
				tc := tc.(map[string]any)
				idx := int(tc["index"].(float64))
				slot, ok := byIndex[idx]
				if !ok {
					e.calls = append(e.calls, chat.ToolCall{})
					slot = len(e.calls) - 1
					byIndex[idx] = slot
				}
				fn, _ := tc["function"].(map[string]any)
				if id, _ := tc["id"].(string); id != "" && e.calls[slot].ID == "" {
					e.calls[slot].ID = id
				}
				if n, _ := fn["name"].(string); n != "" && e.calls[slot].Name == "" {
					e.calls[slot].Name = n
				}
				a, _ := fn["arguments"].(string)
				e.calls[slot].Arguments += a
			}
			if f, _ := ch["finish_reason"].(string); f != "" {
				e.finish = f
			}
		}
	}
	if lastUsage == nil {
		t.Fatal("recording has no usage")
	}
	num := func(m map[string]any, k string) (int, bool) {
		v, ok := m[k].(float64)
		return int(v), ok
	}
	e.usage.PromptTokens, _ = num(lastUsage, "prompt_tokens")
	e.usage.CompletionTokens, _ = num(lastUsage, "completion_tokens")
	e.usage.TotalTokens, _ = num(lastUsage, "total_tokens")
	if hit, ok := num(lastUsage, "prompt_cache_hit_tokens"); ok {
		e.usage.PromptCacheHitTokens = hit
	} else if d, ok := lastUsage["prompt_tokens_details"].(map[string]any); ok {
		e.usage.PromptCacheHitTokens, _ = num(d, "cached_tokens")
	} else {
		e.usage.PromptCacheHitTokens, _ = num(lastUsage, "cached_tokens")
	}
	if miss, ok := num(lastUsage, "prompt_cache_miss_tokens"); ok {
		e.usage.PromptCacheMissTokens = miss
	} else {
		e.usage.PromptCacheMissTokens = e.usage.PromptTokens - e.usage.PromptCacheHitTokens
	}
	if e.usage.PromptTokens == 0 || e.usage.CompletionTokens == 0 {
		t.Errorf("recorded usage looks empty: %v", lastUsage)
	}
	return e
}

// addDetails merges OpenRouter reasoning_details fragments: one item per
// type and index, text and summary concatenated, other fields replaced by
// later non-null values.
func (e *expected) addDetails(v any) {
	frags, _ := v.([]any)
	for _, fr := range frags {
		fr, ok := fr.(map[string]any)
		if !ok {
			continue
		}
		var item map[string]any
		for _, it := range e.details {
			if it["type"] == fr["type"] && it["index"] == fr["index"] {
				item = it
			}
		}
		if item == nil {
			item = map[string]any{}
			e.details = append(e.details, item)
		}
		for k, v := range fr {
			switch {
			case v == nil:
			case k == "text" || k == "summary":
				prev, _ := item[k].(string)
				item[k] = prev + v.(string)
			default:
				item[k] = v
			}
		}
	}
}
