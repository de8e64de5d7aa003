package llmtest

import (
	"encoding/json"
	"fmt"
)

// anthropicStream renders replies as Anthropic's named SSE events.
type anthropicStream struct {
	id, model string
	n         int // the request's number, 1-based
	est       anthropicUsage
}

// trailer is nil: message_stop ends the stream.
func (anthropicStream) trailer() []byte { return nil }

type anthropicWireUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// frames renders rep as Anthropic's stream, each event named: message_start, ping, a
// thinking block (thinking_delta then signature_delta), a text block, a
// tool_use block per call (input_json_delta fragments), message_delta
// with the stop reason and usage, message_stop.
func (a anthropicStream) frames(rep Reply) [][]byte {
	size := rep.ChunkSize // split's default applies
	var out [][]byte
	add := func(name string, v any) {
		b, _ := json.Marshal(v)
		out = append(out, fmt.Appendf(nil, "event: %s\ndata: %s\n\n", name, b))
	}
	type obj = map[string]any
	u := anthropicWireUsage{
		InputTokens: a.est.input, CacheReadInputTokens: a.est.cacheRead, CacheCreationInputTokens: a.est.cacheWrite,
		OutputTokens: completionEstimate(rep),
	}
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
		"id": a.id, "type": "message", "role": "assistant", "model": a.model,
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
		block(obj{"type": "tool_use", "id": anthropicCallID(c, a.n, i), "name": c.Name, "input": obj{}}, ds)
	}
	stop := "end_turn"
	if len(rep.Calls) > 0 {
		stop = "tool_use"
	}
	add("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil}, "usage": u})
	add("message_stop", obj{"type": "message_stop"})
	return out
}
