package responses_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// scriptServer is a small scripted Responses API: each request gets the
// next turn, streamed as the typed events api.openai.com sends, and is
// checked against the rules the real API enforces for stateless requests.
type scriptServer struct {
	t   testing.TB
	srv *httptest.Server

	mu    sync.Mutex
	turns []turn
	reqs  []map[string]any
}

// turn is one scripted response.
type turn struct {
	summary   []string // reasoning summary parts; with encrypted, one reasoning item
	encrypted string
	text      string
	calls     []call
	cached    int // input_tokens_details.cached_tokens
}

type call struct{ id, name, args string }

func newScriptServer(t testing.TB, turns ...turn) *scriptServer {
	s := &scriptServer{t: t, turns: turns}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *scriptServer) baseURL() string { return s.srv.URL + "/v1" }

func (s *scriptServer) requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.reqs...)
}

func (s *scriptServer) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		s.t.Errorf("request is not JSON: %v", err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if msg := checkStateless(req); msg != "" {
		s.t.Errorf("request %d rejected: %s\n%s", len(s.requests())+1, msg, body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, msg)
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	if len(s.turns) == 0 {
		s.mu.Unlock()
		s.t.Errorf("request beyond the script")
		http.Error(w, "script exhausted", http.StatusInternalServerError)
		return
	}
	tn := s.turns[0]
	s.turns = s.turns[1:]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	_, _ = io.WriteString(w, tn.events(len(body)/4))
}

// checkStateless applies the API's rules to a store:false request: every
// function_call is answered by a function_call_output with its call_id,
// every output answers a call, and every reasoning item carries its
// encrypted content and is followed by another item.
func checkStateless(req map[string]any) string {
	if req["store"] != false || req["stream"] != true {
		return "want store:false and stream:true"
	}
	items, _ := req["input"].([]any)
	open := map[string]bool{}
	for i, it := range items {
		it, _ := it.(map[string]any)
		switch it["type"] {
		case "function_call":
			open[it["call_id"].(string)] = true
		case "function_call_output":
			id, _ := it["call_id"].(string)
			if !open[id] {
				return fmt.Sprintf("No tool call found for function call output with call_id %s.", id)
			}
			delete(open, id)
		case "reasoning":
			if _, ok := it["encrypted_content"].(string); !ok {
				return fmt.Sprintf("Item with id '%v' not found. Items are not persisted when `store` is set to false.", it["id"])
			}
			if i+1 == len(items) {
				return fmt.Sprintf("Item '%v' of type 'reasoning' was provided without its required following item.", it["id"])
			}
		default:
			if len(open) > 0 {
				return "No tool output found for function call."
			}
		}
	}
	if len(open) > 0 {
		return "No tool output found for function call."
	}
	return ""
}

// events renders t as an SSE body.
func (t turn) events(inputTokens int) string {
	var b strings.Builder
	seq := 0
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		data, _ := json.Marshal(fields)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, data)
	}
	resp := map[string]any{"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-5-test", "output": []any{}}
	emit("response.created", map[string]any{"response": resp})
	out := 0
	var output []any
	if t.encrypted != "" {
		id := fmt.Sprintf("rs_%d", out)
		emit("response.output_item.added", map[string]any{"output_index": out, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
		var parts []any
		for si, part := range t.summary {
			for _, w := range strings.SplitAfter(part, " ") {
				emit("response.reasoning_summary_text.delta", map[string]any{"output_index": out, "item_id": id, "summary_index": si, "delta": w})
			}
			parts = append(parts, map[string]any{"type": "summary_text", "text": part})
		}
		item := map[string]any{"id": id, "type": "reasoning", "summary": parts, "encrypted_content": t.encrypted}
		emit("response.output_item.done", map[string]any{"output_index": out, "item": item})
		output = append(output, item)
		out++
	}
	if t.text != "" {
		id := fmt.Sprintf("msg_%d", out)
		emit("response.output_item.added", map[string]any{"output_index": out, "item": map[string]any{"id": id, "type": "message", "role": "assistant", "content": []any{}}})
		for _, w := range strings.SplitAfter(t.text, " ") {
			emit("response.output_text.delta", map[string]any{"output_index": out, "item_id": id, "content_index": 0, "delta": w})
		}
		emit("response.output_text.done", map[string]any{"output_index": out, "item_id": id, "content_index": 0, "text": t.text})
		out++
	}
	for _, c := range t.calls {
		id := fmt.Sprintf("fc_%d", out)
		emit("response.output_item.added", map[string]any{"output_index": out, "item": map[string]any{"id": id, "type": "function_call", "call_id": c.id, "name": c.name, "arguments": ""}})
		half := len(c.args) / 2
		for _, d := range []string{c.args[:half], c.args[half:]} {
			emit("response.function_call_arguments.delta", map[string]any{"output_index": out, "item_id": id, "delta": d})
		}
		emit("response.function_call_arguments.done", map[string]any{"output_index": out, "item_id": id, "arguments": c.args})
		item := map[string]any{"id": id, "type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.args, "status": "completed"}
		emit("response.output_item.done", map[string]any{"output_index": out, "item": item})
		output = append(output, item)
		out++
	}
	resp["status"], resp["output"] = "completed", output
	resp["usage"] = map[string]any{
		"input_tokens": inputTokens, "input_tokens_details": map[string]any{"cached_tokens": t.cached},
		"output_tokens": 7, "output_tokens_details": map[string]any{"reasoning_tokens": 3}, "total_tokens": inputTokens + 7,
	}
	emit("response.completed", map[string]any{"response": resp})
	return b.String()
}
