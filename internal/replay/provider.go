package replay

import (
	"context"
	"fmt"
	"sync"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/session"
)

// Provider is the model of a replay: it answers each request with the
// next assistant response the session recorded, whatever was asked, so
// that the tool calls the model made are made again.
type Provider struct {
	mu      sync.Mutex
	answers []*session.Assistant
	next    int
}

// NewProvider answers with the assistant responses of s, in log order
// (checkpoint copies of an answer, IsReplay, are not responses).
func NewProvider(s *session.Session) *Provider {
	p := &Provider{}
	for _, e := range s.Events {
		if a, ok := e.Item.(*session.Assistant); ok && !a.IsReplay {
			p.answers = append(p.answers, a)
		}
	}
	return p
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, _ llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.next >= len(p.answers) {
		n := len(p.answers)
		p.mu.Unlock()
		return nil, fmt.Errorf("the replay asked the model for more than the %d responses the session recorded", n)
	}
	a := p.answers[p.next]
	p.next++
	p.mu.Unlock()
	if a.Reasoning != nil && *a.Reasoning != "" {
		on(llm.Delta{Kind: llm.ReasoningDelta, Text: *a.Reasoning})
	}
	if a.Content != "" {
		on(llm.Delta{Kind: llm.TextDelta, Text: a.Content})
	}
	r := &llm.Response{
		Content:            a.Content,
		Reasoning:          a.Reasoning,
		ReasoningItems:     a.ReasoningItems,
		ReasoningSignature: a.ReasoningSignature,
		ToolCalls:          a.ToolCalls,
		FinishReason:       "stop",
		Model:              a.Model,
	}
	if len(a.ToolCalls) > 0 {
		r.FinishReason = "tool_calls"
	}
	if a.Usage != nil {
		r.Usage = *a.Usage
	}
	return r, nil
}

// Unused is how many recorded responses no request asked for.
func (p *Provider) Unused() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.answers) - p.next
}
