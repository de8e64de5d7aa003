package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicPlayer writes one scripted response as Anthropic SSE.
type anthropicPlayer struct{ player }

// sseEvent is one `event:` + `data:` pair.
type sseEvent struct {
	name string
	data []byte
}

type anthropicWireUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// events renders rep as Anthropic's stream: message_start, ping, a
// thinking block (thinking_delta then signature_delta), a text block, a
// tool_use block per call (input_json_delta fragments), message_delta
// with the stop reason and usage, message_stop.
func (p *anthropicPlayer) events(rep Reply, est anthropicUsage) []sseEvent {
	size := rep.ChunkSize
	if size <= 0 {
		size = 16
	}
	var out []sseEvent
	add := func(name string, v any) {
		b, _ := json.Marshal(v)
		out = append(out, sseEvent{name, b})
	}
	type obj = map[string]any
	u := anthropicWireUsage{InputTokens: est.input, CacheReadInputTokens: est.cacheRead, CacheCreationInputTokens: est.cacheWrite}
	argBytes := 0
	for _, c := range rep.Calls {
		argBytes += len(c.Args) + len(c.Name)
	}
	u.OutputTokens = max((len(rep.Text)+len(rep.Reasoning)+argBytes)/4, 1)
	if rep.Usage != nil {
		u = anthropicWireUsage{
			InputTokens:          rep.Usage.PromptCacheMissTokens,
			CacheReadInputTokens: rep.Usage.PromptCacheHitTokens,
			OutputTokens:         rep.Usage.CompletionTokens,
		}
	}
	start := u
	start.OutputTokens = 1
	add("message_start", obj{"type": "message_start", "message": obj{
		"id": p.id, "type": "message", "role": "assistant", "model": p.model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": start,
	}})
	add("ping", obj{"type": "ping"})
	index := 0
	block := func(start obj, deltas []obj) {
		add("content_block_start", obj{"type": "content_block_start", "index": index, "content_block": start})
		for _, d := range deltas {
			add("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": d})
		}
		add("content_block_stop", obj{"type": "content_block_stop", "index": index})
		index++
	}
	if rep.Reasoning != "" {
		var ds []obj
		for _, piece := range split(rep.Reasoning, size) {
			ds = append(ds, obj{"type": "thinking_delta", "thinking": piece})
		}
		ds = append(ds, obj{"type": "signature_delta", "signature": Signature(rep.Reasoning)})
		block(obj{"type": "thinking", "thinking": "", "signature": ""}, ds)
	}
	if rep.Text != "" {
		var ds []obj
		for _, piece := range split(rep.Text, size) {
			ds = append(ds, obj{"type": "text_delta", "text": piece})
		}
		block(obj{"type": "text", "text": ""}, ds)
	}
	for i, c := range rep.Calls {
		ds := []obj{{"type": "input_json_delta", "partial_json": ""}}
		for _, piece := range split(c.Args, size) {
			ds = append(ds, obj{"type": "input_json_delta", "partial_json": piece})
		}
		block(obj{"type": "tool_use", "id": anthropicCallID(c, p.n, i), "name": c.Name, "input": obj{}}, ds)
	}
	stop := "end_turn"
	if len(rep.Calls) > 0 {
		stop = "tool_use"
	}
	add("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil}, "usage": u})
	add("message_stop", obj{"type": "message_stop"})
	return out
}

// reply streams rep; limit >= 0 stops after that many events (the caller
// then drops the connection).
func (p *anthropicPlayer) reply(rep Reply, est anthropicUsage, limit int) {
	h := p.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	p.w.WriteHeader(http.StatusOK)
	p.flush()
	for i, e := range p.events(rep, est) {
		if limit >= 0 && i >= limit {
			return
		}
		if rep.Delay > 0 && !p.wait(rep.Delay) {
			return
		}
		if !p.send(e) {
			return
		}
	}
}

// stall sends after events of a filler reply, then waits for the client
// to leave.
func (p *anthropicPlayer) stall(after int, est anthropicUsage) {
	if after > 0 {
		filler := Reply{Text: strings.Repeat("waiting ", after), ChunkSize: 8}
		p.w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		p.w.WriteHeader(http.StatusOK)
		for i, e := range p.events(filler, est) {
			if i >= after || !p.send(e) {
				break
			}
		}
	}
	select {
	case <-p.r.Context().Done():
	case <-p.done:
	}
}

// fail answers with an HTTP error: Anthropic's JSON error object, or Body
// as given (HTML unless it starts with '{').
func (p *anthropicPlayer) fail(f Fail) {
	status := f.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if f.RetryAfter != "" {
		p.w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.Body == "" {
		writeAnthropicError(p.w, status, fmt.Sprintf("llmtest: scripted failure (HTTP %d)", status))
		return
	}
	ct := "text/html; charset=utf-8"
	if strings.HasPrefix(strings.TrimSpace(f.Body), "{") {
		ct = "application/json"
	}
	p.w.Header().Set("Content-Type", ct)
	p.w.WriteHeader(status)
	_, _ = p.w.Write([]byte(f.Body))
}

func (p *anthropicPlayer) send(e sseEvent) bool {
	if _, err := fmt.Fprintf(p.w, "event: %s\ndata: %s\n\n", e.name, e.data); err != nil {
		return false
	}
	p.flush()
	return true
}
