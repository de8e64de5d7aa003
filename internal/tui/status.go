package tui

import (
	"fmt"
	"github.com/openseek/openseek/internal/render"
	"strings"

	"github.com/openseek/openseek/protocol"
)

// statusInfo is what the status line shows.
type statusInfo struct {
	session   string
	window    int
	lastInput int // prompt+completion tokens of the last response
	total     protocol.Usage
	cost      float64
	turns     int               // turns summarised
	unpriced  bool              // a turn's cost was unknown: the total is too
	jobs      map[string]bool   // generation/id → running
	gens      map[string]string // job id → generation
	health    *protocol.ContextHealth
}

func (s *statusInfo) addUsage(u protocol.Usage) {
	s.total = s.total.Add(u)
	s.lastInput = u.PromptTokens + u.CompletionTokens
}

func (s *statusInfo) turn(t protocol.TurnSummary) {
	s.turns++
	if t.CostUSD == nil {
		s.unpriced = true
		return
	}
	s.cost += *t.CostUSD
}

func (s *statusInfo) generationOf(id string) string {
	if g := s.gens[id]; g != "" {
		return g
	}
	for k := range s.jobs {
		if g, j, ok := strings.Cut(k, "/"); ok && j == id {
			return g
		}
	}
	return ""
}

func (s *statusInfo) running() int {
	n := 0
	for _, r := range s.jobs {
		if r {
			n++
		}
	}
	return n
}

// tersecost is the status line's cost: "$0.0012", or "cost unknown"
// (render.CostText's rule, in fewer columns).
func tersecost(usd float64, known bool) string {
	if !known {
		return render.CostText(usd, known)
	}
	return render.USD(usd, known)
}

// statusLine: model · context % · tokens · cache hits · cost · jobs · mode.
func (m *Model) statusLine(v *view) string {
	s := &m.stat
	parts := []string{m.model}
	if s.health != nil {
		parts = append(parts, render.ContextLine(*s.health))
	} else if s.window > 0 {
		parts = append(parts, fmt.Sprintf("ctx %d%%", s.lastInput*100/s.window))
	}
	parts = append(parts, fmt.Sprintf("%s in / %s out", count(s.total.PromptTokens), count(s.total.CompletionTokens)))
	if c := s.total.PromptCacheHitTokens + s.total.PromptCacheMissTokens; c > 0 {
		parts = append(parts, fmt.Sprintf("cache %d%%", s.total.PromptCacheHitTokens*100/c))
	}
	if s.turns > 0 {
		parts = append(parts, tersecost(s.cost, !s.unpriced))
	}
	if n := s.running(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d jobs", n))
	}
	if m.mode != "" {
		parts = append(parts, m.mode)
	}
	if m.busy {
		parts = append(parts, m.spin.View()+" working (Esc interrupts)")
	}
	line := truncate(" "+strings.Join(parts, " · "), v.width)
	return v.st.status.Width(v.width).Render(line)
}

func count(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

// jobOutput describes one job and where its output is.
func jobOutput(j protocol.JobRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "job %s: %s\n  state %s · %d bytes of output", j.ID, oneLine(j.Command), jobState(j.State), j.OutputBytes)
	if j.OutputTruncated {
		b.WriteString(" (truncated)")
	}
	if j.OutputFile != nil {
		fmt.Fprintf(&b, "\n  output file: jobs/%s/%s", j.Generation, *j.OutputFile)
	}
	if j.OutputError != nil {
		b.WriteString("\n  output error: " + *j.OutputError)
	}
	return b.String()
}
