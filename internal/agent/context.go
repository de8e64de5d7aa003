package agent

import (
	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
)

// Context ceilings (fractions of the model's window). At the soft
// ceiling the turn checkpoints at the next step boundary: the history is
// summarised and the turn yields with a context_yield the next turn
// continues from. At the hard ceiling no tool batch starts.
const (
	DefaultSoftCeiling = 0.70
	DefaultHardCeiling = 0.80
	// DefaultWindow is assumed for models the catalogue does not know.
	DefaultWindow = 128_000
	// worstCaseResultTokens bounds what one tool result can add (the
	// largest output cap of the built-in tools is 50,000 characters).
	worstCaseResultTokens = 16_000
)

// meter estimates how many tokens the next request will take. It counts
// the bytes of what is sent and converts them with a bytes-per-token
// ratio calibrated on the provider's own count of the previous request.
type meter struct {
	toolBytes  int
	ratio      float64 // bytes per token
	calibrated bool
	lastTokens int // the provider's prompt tokens of the last request
	lastBytes  int // our byte count of that request
	window     int
	soft, hard float64
}

func newMeter(window int, soft, hard float64, tools []llm.ToolSpec) *meter {
	m := &meter{ratio: 4, window: window, soft: soft, hard: hard}
	for _, t := range tools {
		m.toolBytes += len(t.Name) + len(t.Description) + len(t.Parameters) + 32
	}
	return m
}

// bytes is the size of a request's content as the meter counts it.
func (m *meter) bytes(v view) int { return m.toolBytes + v.bytes }

// messageBytes is one message's share of a request's size.
func messageBytes(msg chat.Message) int {
	n := 16 + len(msg.ToolCallID)
	for _, p := range msg.Content {
		n += len(p.Text) + len(p.Data)/3 // images cost far less than their bytes
	}
	if msg.Reasoning != nil {
		n += len(*msg.Reasoning)
	}
	for _, c := range msg.ToolCalls {
		n += 24 + len(c.ID) + len(c.Name) + len(c.Arguments)
	}
	return n
}

// observe calibrates the ratio with the provider's count for a request.
func (m *meter) observe(requestBytes, promptTokens int) {
	if promptTokens <= 0 || requestBytes <= 0 {
		return
	}
	r := float64(requestBytes) / float64(promptTokens)
	if r < 1 {
		r = 1
	} else if r > 8 {
		r = 8
	}
	m.ratio, m.calibrated = r, true
	m.lastTokens, m.lastBytes = promptTokens, requestBytes
}

// tokens estimates the prompt tokens of a request.
func (m *meter) tokens(v view) int {
	b := m.bytes(v)
	if m.calibrated && b >= m.lastBytes {
		return m.lastTokens + int(float64(b-m.lastBytes)/m.ratio)
	}
	return int(float64(b) / m.ratio)
}

func (m *meter) overSoft(tokens int) bool { return float64(tokens) > m.soft*float64(m.window) }
func (m *meter) overHard(tokens int) bool { return float64(tokens) > m.hard*float64(m.window) }

// fits reports whether a tool result of the worst-case size still fits
// in the window on top of tokens.
func (m *meter) fits(tokens int) bool {
	return tokens+min(worstCaseResultTokens, m.window/10) <= m.window
}
