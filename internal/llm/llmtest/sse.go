package llmtest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/openseek/openseek/protocol"
)

// chatStream renders replies as chat-completions chunks: data-only SSE
// events ending in [DONE].
type chatStream struct {
	id, model string
	n         int // the request's number, 1-based
	est       usageEstimate
}

func (chatStream) trailer() []byte { return dataFrame([]byte("[DONE]")) }

// dataFrame is an unnamed SSE event carrying data.
func dataFrame(data []byte) []byte { return fmt.Appendf(nil, "data: %s\n\n", data) }

type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *wireUsage    `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []toolCallDelta `json:"tool_calls,omitempty"`
}

type toolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string  `json:"name,omitempty"`
		Arguments *string `json:"arguments,omitempty"`
	} `json:"function"`
}

type wireUsage struct {
	protocol.Usage
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// frames renders rep as its chunks, each a data event.
func (c chatStream) frames(rep Reply) [][]byte {
	size := rep.ChunkSize // split's default applies
	var ds []delta
	empty := ""
	ds = append(ds, delta{Role: "assistant", Content: &empty})
	for _, piece := range split(rep.Reasoning, size) {
		ds = append(ds, delta{ReasoningContent: piece})
	}
	for _, piece := range split(rep.Text, size) {
		ds = append(ds, delta{Content: &piece})
	}
	for i, call := range rep.Calls {
		id := call.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", c.n, i)
		}
		first := toolCallDelta{Index: i, ID: id, Type: "function"}
		first.Function.Name = call.Name
		first.Function.Arguments = &empty
		ds = append(ds, delta{ToolCalls: []toolCallDelta{first}})
		for _, piece := range split(call.Args, size) {
			frag := toolCallDelta{Index: i}
			frag.Function.Arguments = &piece
			ds = append(ds, delta{ToolCalls: []toolCallDelta{frag}})
		}
	}

	created := time.Now().Unix()
	out := make([][]byte, 0, len(ds)+2)
	add := func(ch chunk) {
		ch.ID, ch.Object, ch.Created, ch.Model = c.id, "chat.completion.chunk", created, c.model
		b, _ := json.Marshal(ch)
		out = append(out, dataFrame(b))
	}
	for _, d := range ds {
		add(chunk{Choices: []chunkChoice{{Delta: d}}})
	}
	finish := "stop"
	if len(rep.Calls) > 0 {
		finish = "tool_calls"
	}
	add(chunk{Choices: []chunkChoice{{Delta: delta{}, FinishReason: &finish}}})

	u := protocol.Usage{}
	if rep.Usage != nil {
		u = *rep.Usage
	} else {
		u.PromptTokens = c.est.prompt
		u.PromptCacheHitTokens = c.est.hit
		u.PromptCacheMissTokens = c.est.prompt - c.est.hit
		u.CompletionTokens = completionEstimate(rep)
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	wu := &wireUsage{Usage: u}
	wu.PromptTokensDetails.CachedTokens = u.PromptCacheHitTokens
	add(chunk{Choices: []chunkChoice{}, Usage: wu})
	return out
}
