package jobs

import (
	"fmt"

	"github.com/openseek/openseek/protocol"
)

// OutputView is a window onto a job's output.
type OutputView struct {
	Job       protocol.JobRecord // the job's current record
	Text      string             // the window; invalid UTF-8 reads as U+FFFD
	Offset    int64              // character offset where Text starts
	Shown     int64              // characters in Text
	Total     int64              // characters of output so far
	Truncated bool               // Text is not the whole output so far
}

// Output reads a window of at most window characters (DefaultWindow when
// window <= 0) of job id's output: from character offset *offset, or the
// tail when offset is nil. An offset past the end yields an empty window.
func (m *Manager) Output(id string, offset *int, window int) (OutputView, error) {
	m.mu.Lock()
	j, ok := m.jobs[id]
	var rec protocol.JobRecord
	if ok {
		rec = m.record(j)
	}
	m.mu.Unlock()
	if !ok {
		return OutputView{}, fmt.Errorf("%w with id %s", ErrNotFound, id)
	}
	if window <= 0 {
		window = DefaultWindow
	}
	total := j.p.Output().Chars
	start := max(total-int64(window), 0)
	if offset != nil {
		start = min(max(int64(*offset), 0), total)
	}
	text, err := j.p.Read(start, int64(window))
	if err != nil {
		return OutputView{}, fmt.Errorf("job %s: %w", id, err)
	}
	shown := int64(len([]rune(text)))
	return OutputView{
		Job: rec, Text: text, Offset: start, Shown: shown, Total: total,
		Truncated: shown < total,
	}, nil
}
