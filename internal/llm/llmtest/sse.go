package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openseek/openseek/protocol"
)

// player writes one scripted response.
type player struct {
	w     http.ResponseWriter
	r     *http.Request
	done  <-chan struct{}
	model string
	id    string
	n     int // the request's number, 1-based
}

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

// chunks renders rep as the data payloads of its SSE events.
func (p *player) chunks(rep Reply, est usageEstimate) [][]byte {
	size := rep.ChunkSize
	if size <= 0 {
		size = 16
	}
	var ds []delta
	empty := ""
	ds = append(ds, delta{Role: "assistant", Content: &empty})
	for _, piece := range split(rep.Reasoning, size) {
		ds = append(ds, delta{ReasoningContent: piece})
	}
	for _, piece := range split(rep.Text, size) {
		ds = append(ds, delta{Content: &piece})
	}
	argBytes := 0
	for i, c := range rep.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", p.n, i)
		}
		first := toolCallDelta{Index: i, ID: id, Type: "function"}
		first.Function.Name = c.Name
		first.Function.Arguments = &empty
		ds = append(ds, delta{ToolCalls: []toolCallDelta{first}})
		for _, piece := range split(c.Args, size) {
			frag := toolCallDelta{Index: i}
			frag.Function.Arguments = &piece
			ds = append(ds, delta{ToolCalls: []toolCallDelta{frag}})
		}
		argBytes += len(c.Args) + len(c.Name)
	}

	created := time.Now().Unix()
	out := make([][]byte, 0, len(ds)+2)
	add := func(c chunk) {
		c.ID, c.Object, c.Created, c.Model = p.id, "chat.completion.chunk", created, p.model
		b, _ := json.Marshal(c)
		out = append(out, b)
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
		u.PromptTokens = est.prompt
		u.PromptCacheHitTokens = est.hit
		u.PromptCacheMissTokens = est.prompt - est.hit
		u.CompletionTokens = max((len(rep.Text)+len(rep.Reasoning)+argBytes)/4, 1)
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	wu := &wireUsage{Usage: u}
	wu.PromptTokensDetails.CachedTokens = u.PromptCacheHitTokens
	add(chunk{Choices: []chunkChoice{}, Usage: wu})
	return out
}

// split cuts s into pieces of at most size runes.
func split(s string, size int) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		n := min(size, len(r))
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return out
}

// reply streams rep; limit >= 0 stops after that many events without
// [DONE] (the caller then drops the connection).
func (p *player) reply(rep Reply, est usageEstimate, limit int) {
	h := p.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	p.w.WriteHeader(http.StatusOK)
	p.flush()
	for i, c := range p.chunks(rep, est) {
		if limit >= 0 && i >= limit {
			return
		}
		if rep.Delay > 0 && !p.wait(rep.Delay) {
			return
		}
		if !p.event(c) {
			return
		}
	}
	if limit < 0 {
		p.event([]byte("[DONE]"))
	}
}

// stall sends after events of a filler reply, then waits for the client
// to leave.
func (p *player) stall(after int, est usageEstimate) {
	if after > 0 {
		filler := Reply{Text: strings.Repeat("waiting ", after), ChunkSize: 8}
		h := p.w.Header()
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		p.w.WriteHeader(http.StatusOK)
		for i, c := range p.chunks(filler, est) {
			if i >= after || !p.event(c) {
				break
			}
		}
	}
	select {
	case <-p.r.Context().Done():
	case <-p.done:
	}
}

func (p *player) fail(f Fail) {
	status := f.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if f.RetryAfter != "" {
		p.w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.Body == "" {
		writeError(p.w, status, fmt.Sprintf("llmtest: scripted failure (HTTP %d)", status))
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

func (p *player) event(data []byte) bool {
	if _, err := fmt.Fprintf(p.w, "data: %s\n\n", data); err != nil {
		return false
	}
	p.flush()
	return true
}

func (p *player) flush() {
	if f, ok := p.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (p *player) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.r.Context().Done():
	case <-p.done:
	}
	return false
}
