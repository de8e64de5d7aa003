package responses

import (
	"encoding/json"
	"strings"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/protocol"
)

// fold accumulates stream events into a Response. Events it does not know
// (web search, audio, annotations, ...) are ignored.
type fold struct {
	text, reasoning strings.Builder
	sawReasoning    bool
	reasoningKey    reasoningPart // the summary part the last reasoning delta belonged to
	reasoningItems  []json.RawMessage
	calls           []*chat.ToolCall
	byOutput        map[int64]int // output_index → calls slot
	usage           *usage
	model           string
	status, reason  string // the final response's status and incomplete reason
	finished        bool   // response.completed or response.incomplete arrived
}

type reasoningPart struct {
	item    string
	summary int64
}

// eventFailure is an error the API reported inside the stream.
type eventFailure struct{ code, message string }

func (e *eventFailure) Error() string {
	if e.code == "" {
		return e.message
	}
	return e.code + ": " + e.message
}

// add folds ev in and reports visible deltas through on. It returns an
// *eventFailure for an error event or a failed response.
func (f *fold) add(ev *streamEvent, on func(llm.Delta)) error {
	switch ev.Type {
	case "response.created", "response.in_progress":
		f.noteModel(string(ev.Response.Model))
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta != "" {
			f.text.WriteString(string(ev.Delta))
			on(llm.Delta{Kind: llm.TextDelta, Text: string(ev.Delta)})
		}
	case "response.reasoning_summary_text.delta":
		f.addReasoning(reasoningPart{string(ev.ItemID), ev.SummaryIndex.N}, string(ev.Delta), on)
	case "response.reasoning_text.delta":
		f.addReasoning(reasoningPart{string(ev.ItemID), -1 - ev.ContentIndex.N}, string(ev.Delta), on)
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			c := f.call(ev.OutputIndex.N)
			c.ID, c.Name = string(ev.Item.CallID), string(ev.Item.Name)
			c.Arguments = string(ev.Item.Arguments)
		}
	case "response.function_call_arguments.delta":
		f.call(ev.OutputIndex.N).Arguments += string(ev.Delta)
	case "response.function_call_arguments.done":
		if ev.Arguments != "" {
			f.call(ev.OutputIndex.N).Arguments = string(ev.Arguments)
		}
	case "response.output_item.done":
		switch ev.Item.Type {
		case "function_call":
			c := f.call(ev.OutputIndex.N)
			c.ID, c.Name = string(ev.Item.CallID), string(ev.Item.Name)
			if a := string(ev.Item.Arguments); a != "" || c.Arguments == "" {
				c.Arguments = a
			}
		case "reasoning":
			if raw, ok := replayable(ev.Item.raw); ok {
				f.reasoningItems = append(f.reasoningItems, raw)
			}
		}
	case "response.completed", "response.incomplete":
		r := &ev.Response
		f.noteModel(string(r.Model))
		if r.Usage.InputTokens.Set || r.Usage.OutputTokens.Set {
			u := r.Usage
			f.usage = &u
		}
		f.status, f.reason = string(r.Status), string(r.IncompleteDetails.Reason)
		if f.status == "" {
			f.status = strings.TrimPrefix(string(ev.Type), "response.")
		}
		f.finished = true
	case "response.failed":
		e := ev.Response.Error
		msg := string(e.Message)
		if msg == "" {
			msg = "the response failed"
		}
		return &eventFailure{code: string(e.Code), message: msg}
	case "error":
		msg := string(ev.Message)
		if msg == "" {
			msg = "unknown error"
		}
		return &eventFailure{code: string(ev.Code), message: msg}
	}
	return nil
}

func (f *fold) noteModel(m string) {
	if f.model == "" && m != "" {
		f.model = m
	}
}

// addReasoning appends a reasoning fragment, separating summary parts
// (each a short titled paragraph) with a blank line.
func (f *fold) addReasoning(part reasoningPart, d string, on func(llm.Delta)) {
	if d == "" {
		return
	}
	if f.sawReasoning && part != f.reasoningKey {
		f.reasoning.WriteString("\n\n")
		on(llm.Delta{Kind: llm.ReasoningDelta, Text: "\n\n"})
	}
	f.sawReasoning, f.reasoningKey = true, part
	f.reasoning.WriteString(d)
	on(llm.Delta{Kind: llm.ReasoningDelta, Text: d})
}

// call returns the tool call at an output index, creating it.
func (f *fold) call(idx int64) *chat.ToolCall {
	if f.byOutput == nil {
		f.byOutput = map[int64]int{}
	}
	slot, ok := f.byOutput[idx]
	if !ok {
		f.calls = append(f.calls, &chat.ToolCall{})
		slot = len(f.calls) - 1
		f.byOutput[idx] = slot
	}
	return f.calls[slot]
}

// replayItem is the part of a reasoning item the API accepts back as
// input; status and content are response-only.
type replayItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Summary          json.RawMessage `json:"summary"`
	EncryptedContent *string         `json:"encrypted_content,omitempty"`
}

// replayable reduces a finished reasoning item to its input form. Without
// encrypted content the item cannot be replayed statelessly and is dropped.
func replayable(raw []byte) (json.RawMessage, bool) {
	var it replayItem
	if json.Unmarshal(raw, &it) != nil || it.ID == "" || it.EncryptedContent == nil {
		return nil, false
	}
	if len(it.Summary) == 0 || string(it.Summary) == "null" {
		it.Summary = json.RawMessage("[]")
	}
	b, err := json.Marshal(it)
	return b, err == nil
}

func (f *fold) response() *llm.Response {
	r := &llm.Response{Content: f.text.String(), Model: f.model}
	if f.sawReasoning {
		s := f.reasoning.String()
		r.Reasoning = &s
	}
	if len(f.reasoningItems) > 0 {
		r.ReasoningItems, _ = json.Marshal(f.reasoningItems)
	}
	for _, c := range f.calls {
		r.ToolCalls = append(r.ToolCalls, *c)
	}
	switch {
	case f.status == "incomplete" && f.reason == "max_output_tokens":
		r.FinishReason = "length"
	case f.status == "incomplete" && f.reason != "":
		r.FinishReason = f.reason
	case len(r.ToolCalls) > 0:
		r.FinishReason = "tool_calls"
	default:
		r.FinishReason = "stop"
	}
	if f.usage != nil {
		r.Usage = usageOf(f.usage)
	}
	return r
}

// usageOf converts the API's accounting: cached input tokens are cache
// hits, the rest of the input misses.
func usageOf(u *usage) protocol.Usage {
	out := protocol.Usage{
		PromptTokens:         int(u.InputTokens.N),
		CompletionTokens:     int(u.OutputTokens.N),
		TotalTokens:          int(u.TotalTokens.N),
		PromptCacheHitTokens: int(u.InputTokensDetails.CachedTokens.N),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.PromptTokens + out.CompletionTokens
	}
	out.PromptCacheMissTokens = max(out.PromptTokens-out.PromptCacheHitTokens, 0)
	return out
}
