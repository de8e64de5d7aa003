package openai

import (
	"encoding/json"
	"strings"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/protocol"
)

// chunk is one chat.completion.chunk with the vendor extensions this client
// reads: reasoning_content (DeepSeek, Kimi, GLM, xAI, llama.cpp), reasoning
// and reasoning_details (OpenRouter) and the several spellings of prompt-cache usage.
type chunk struct {
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *wireUsage    `json:"usage"`
}

type chunkChoice struct {
	Index int `json:"index"`
	Delta struct {
		Content          string            `json:"content"`
		ReasoningContent string            `json:"reasoning_content"`
		Reasoning        string            `json:"reasoning"`
		ReasoningDetails []json.RawMessage `json:"reasoning_details"` // OpenRouter
		ToolCalls        []toolCallDelta   `json:"tool_calls"`
	} `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens          int  `json:"prompt_tokens"`
	CompletionTokens      int  `json:"completion_tokens"`
	TotalTokens           int  `json:"total_tokens"`
	PromptCacheHitTokens  *int `json:"prompt_cache_hit_tokens"`  // DeepSeek
	PromptCacheMissTokens *int `json:"prompt_cache_miss_tokens"` // DeepSeek
	CachedTokens          *int `json:"cached_tokens"`            // Kimi
	PromptTokensDetails   *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"` // OpenAI and most others
}

// usage converts the vendor's accounting; a miss the vendor does not state
// is the prompt tokens that were not hits.
func (u wireUsage) usage() protocol.Usage {
	out := protocol.Usage{
		PromptTokens:     u.PromptTokens,
		CompletionTokens: u.CompletionTokens,
		TotalTokens:      u.TotalTokens,
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.PromptTokens + out.CompletionTokens
	}
	switch {
	case u.PromptCacheHitTokens != nil:
		out.PromptCacheHitTokens = *u.PromptCacheHitTokens
	case u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil:
		out.PromptCacheHitTokens = *u.PromptTokensDetails.CachedTokens
	case u.CachedTokens != nil:
		out.PromptCacheHitTokens = *u.CachedTokens
	}
	if u.PromptCacheMissTokens != nil {
		out.PromptCacheMissTokens = *u.PromptCacheMissTokens
	} else {
		out.PromptCacheMissTokens = max(out.PromptTokens-out.PromptCacheHitTokens, 0)
	}
	return out
}

// fold accumulates chunks into a Response. It is tolerant by design:
// vendors repeat finish_reason, change chunk ids, send usage on a chunk
// with choices or on its own, and split tool-call arguments anywhere.
type fold struct {
	text, reasoning strings.Builder
	sawReasoning    bool
	details         details
	calls           []*chat.ToolCall
	byIndex         map[int]int // tool-call index on the wire → calls slot
	usage           *wireUsage
	finish, model   string
}

// add folds c in and reports the visible deltas through on.
func (f *fold) add(c *chunk, on func(llm.Delta)) {
	if f.model == "" && c.Model != "" {
		f.model = c.Model
	}
	if c.Usage != nil {
		f.usage = c.Usage
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			// n>1 is never requested; other choices are not ours.
			continue
		}
		if r := ch.Delta.ReasoningContent; r != "" {
			f.addReasoning(r, on)
		} else if r := ch.Delta.Reasoning; r != "" {
			f.addReasoning(r, on)
		}
		if len(ch.Delta.ReasoningDetails) > 0 {
			f.details.add(ch.Delta.ReasoningDetails)
		}
		if t := ch.Delta.Content; t != "" {
			f.text.WriteString(t)
			on(llm.Delta{Kind: llm.TextDelta, Text: t})
		}
		for j, tc := range ch.Delta.ToolCalls {
			f.addCall(j, tc)
		}
		if ch.FinishReason != "" {
			f.finish = ch.FinishReason
		}
	}
}

func (f *fold) addReasoning(r string, on func(llm.Delta)) {
	f.sawReasoning = true
	f.reasoning.WriteString(r)
	on(llm.Delta{Kind: llm.ReasoningDelta, Text: r})
}

// addCall merges one tool-call fragment. Calls are told apart by index;
// a fragment without an index belongs to its position in the chunk. A new
// id at an index whose call already has one starts another call (servers
// that send every call at index 0).
func (f *fold) addCall(pos int, d toolCallDelta) {
	idx := pos
	if d.Index != nil {
		idx = *d.Index
	}
	if f.byIndex == nil {
		f.byIndex = map[int]int{}
	}
	slot, ok := f.byIndex[idx]
	if ok && d.ID != "" && f.calls[slot].ID != "" && d.ID != f.calls[slot].ID {
		ok = false
	}
	if !ok {
		f.calls = append(f.calls, &chat.ToolCall{})
		slot = len(f.calls) - 1
		f.byIndex[idx] = slot
	}
	c := f.calls[slot]
	if c.ID == "" {
		c.ID = d.ID
	}
	if c.Name == "" {
		c.Name = d.Function.Name
	}
	c.Arguments += d.Function.Arguments
}

// done reports whether the model said it finished.
func (f *fold) done() bool { return f.finish != "" }

func (f *fold) response() *llm.Response {
	r := &llm.Response{
		Content:      f.text.String(),
		FinishReason: f.finish,
		Model:        f.model,
	}
	if f.sawReasoning {
		s := f.reasoning.String()
		r.Reasoning = &s
	}
	r.ReasoningItems = f.details.raw()
	for _, c := range f.calls {
		r.ToolCalls = append(r.ToolCalls, *c)
	}
	if f.usage != nil {
		r.Usage = f.usage.usage()
	}
	return r
}

// streamError is an error object sent inside the stream.
type streamError struct {
	Error struct {
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
	} `json:"error"`
}
