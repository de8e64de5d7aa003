package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/protocol"
)

// event is one Messages API stream event; the fields of every event type
// share the struct (ping and error never reach it: the SDK's stream skips
// the first and turns the second into an error).
type event struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Model string     `json:"model"`
		Usage *wireUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
}

// wireUsage is Anthropic's accounting. message_start carries all of it;
// message_delta repeats what changed (cumulative), so a field it leaves
// out or null keeps its earlier value.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
}

func (u *wireUsage) merge(v *wireUsage) {
	for _, f := range []struct{ dst, src **int }{
		{&u.InputTokens, &v.InputTokens},
		{&u.CacheCreationInputTokens, &v.CacheCreationInputTokens},
		{&u.CacheReadInputTokens, &v.CacheReadInputTokens},
		{&u.OutputTokens, &v.OutputTokens},
	} {
		if *f.src != nil {
			*f.dst = *f.src
		}
	}
}

// usage converts to the neutral accounting: every input token is a prompt
// token, cache reads are hits and the rest (uncached input and cache
// writes) are misses.
func (u wireUsage) usage() protocol.Usage {
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	hit := n(u.CacheReadInputTokens)
	out := protocol.Usage{
		PromptTokens:          n(u.InputTokens) + n(u.CacheCreationInputTokens) + hit,
		CompletionTokens:      n(u.OutputTokens),
		PromptCacheHitTokens:  hit,
		PromptCacheMissTokens: n(u.InputTokens) + n(u.CacheCreationInputTokens),
	}
	out.TotalTokens = out.PromptTokens + out.CompletionTokens
	return out
}

// block is a content block being assembled.
type block struct {
	kind string // text, thinking, tool_use, or another type that is ignored
	call int    // tool_use: the slot in fold.calls
}

// fold accumulates stream events into a Response.
type fold struct {
	text, reasoning strings.Builder
	sawReasoning    bool
	signature       string
	blocks          map[int]block
	calls           []chat.ToolCall
	args            []strings.Builder // per call: the input_json_delta fragments
	start           []json.RawMessage // per call: content_block_start's input
	usage           wireUsage
	sawUsage        bool
	stop, model     string
	stopped         bool // message_stop arrived
}

// add folds e in and reports the visible deltas through on.
func (f *fold) add(e *event, on func(llm.Delta)) {
	switch e.Type {
	case "message_start":
		if m := e.Message; m != nil {
			if f.model == "" {
				f.model = m.Model
			}
			if m.Usage != nil {
				f.usage.merge(m.Usage)
				f.sawUsage = true
			}
		}
	case "content_block_start":
		if e.ContentBlock != nil {
			f.startBlock(e.Index, e, on)
		}
	case "content_block_delta":
		if e.Delta != nil {
			f.delta(e.Index, e, on)
		}
	case "message_delta":
		if e.Delta != nil && e.Delta.StopReason != "" {
			f.stop = e.Delta.StopReason
		}
		if e.Usage != nil {
			f.usage.merge(e.Usage)
			f.sawUsage = true
		}
	case "message_stop":
		f.stopped = true
	}
}

func (f *fold) startBlock(i int, e *event, on func(llm.Delta)) {
	if f.blocks == nil {
		f.blocks = map[int]block{}
	}
	cb := e.ContentBlock
	b := block{kind: cb.Type}
	switch cb.Type {
	case "text":
		f.addText(cb.Text, on)
	case "thinking":
		f.sawReasoning = true
		f.addReasoning(cb.Thinking, on)
		if cb.Signature != "" {
			f.signature = cb.Signature
		}
	case "tool_use":
		b.call = len(f.calls)
		f.calls = append(f.calls, chat.ToolCall{ID: cb.ID, Name: cb.Name})
		f.args = append(f.args, strings.Builder{})
		f.start = append(f.start, cb.Input)
	}
	f.blocks[i] = b
}

func (f *fold) delta(i int, e *event, on func(llm.Delta)) {
	b, ok := f.blocks[i]
	d := e.Delta
	switch {
	case d.Type == "text_delta":
		f.addText(d.Text, on)
	case d.Type == "thinking_delta":
		f.sawReasoning = true
		f.addReasoning(d.Thinking, on)
	case d.Type == "signature_delta":
		f.signature = d.Signature
	case d.Type == "input_json_delta" && ok && b.kind == "tool_use":
		f.args[b.call].WriteString(d.PartialJSON)
	}
}

func (f *fold) addText(s string, on func(llm.Delta)) {
	if s != "" {
		f.text.WriteString(s)
		on(llm.Delta{Kind: llm.TextDelta, Text: s})
	}
}

func (f *fold) addReasoning(s string, on func(llm.Delta)) {
	if s != "" {
		f.reasoning.WriteString(s)
		on(llm.Delta{Kind: llm.ReasoningDelta, Text: s})
	}
}

// done reports whether the model said it finished.
func (f *fold) done() bool { return f.stopped || f.stop != "" }

func (f *fold) response() *llm.Response {
	r := &llm.Response{
		Content:            f.text.String(),
		ReasoningSignature: f.signature,
		FinishReason:       f.stop,
		Model:              f.model,
	}
	if f.sawReasoning {
		s := f.reasoning.String()
		r.Reasoning = &s
	}
	for i, c := range f.calls {
		c.Arguments = f.args[i].String()
		if c.Arguments == "" {
			// No fragments: the whole input came with the block's start
			// (or the tool takes no arguments).
			c.Arguments = compactInput(f.start[i])
		}
		r.ToolCalls = append(r.ToolCalls, c)
	}
	if f.sawUsage {
		r.Usage = f.usage.usage()
	}
	return r
}

func compactInput(raw json.RawMessage) string {
	var buf bytes.Buffer
	if len(raw) == 0 || json.Compact(&buf, raw) != nil || buf.String() == "null" {
		return "{}"
	}
	return buf.String()
}
