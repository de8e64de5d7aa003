package jobs

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openseek/openseek/protocol"
)

// record builds j's current record; m.mu is held.
func (m *Manager) record(j *job) protocol.JobRecord {
	st := j.p.out.stats()
	rec := protocol.JobRecord{
		Generation:       m.gen,
		ID:               j.id,
		Revision:         j.revision,
		Command:          j.p.spec.Command,
		Description:      optional(j.p.spec.Description),
		Cwd:              optional(j.p.spec.Dir),
		State:            j.state,
		StartedAtMs:      j.p.started.UnixMilli(),
		BackgroundedAtMs: j.backgrounded.UnixMilli(),
		OutputFile:       optional(filepath.Base(st.Path)),
		OutputPersistent: m.o.Dir != "",
		OutputBytes:      st.Bytes,
		OutputChars:      int(min(st.Chars, math.MaxInt32)),
		OutputTruncated:  st.Dropped,
		InvalidUTF8:      st.Invalid,
		PersistenceError: j.persistErr,
	}
	if !j.finished.IsZero() {
		ms := j.finished.UnixMilli()
		rec.FinishedAtMs = &ms
	}
	if !st.LastOutput.IsZero() {
		ms := st.LastOutput.UnixMilli()
		rec.LastOutputAtMs = &ms
	}
	if st.Err != nil {
		s := st.Err.Error()
		rec.OutputError = &s
	}
	return rec
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Snapshot returns the current record of every job, sorted by id in
// numeric order (bg-2 before bg-10).
func (m *Manager) Snapshot() []protocol.JobRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	js := make([]*job, 0, len(m.jobs))
	for _, j := range m.jobs {
		js = append(js, j)
	}
	slices.SortFunc(js, func(a, b *job) int { return a.n - b.n })
	recs := make([]protocol.JobRecord, len(js))
	for i, j := range js {
		recs[i] = m.record(j)
	}
	return recs
}

// Notice is the text the model sees when the job of a final record ended
// on its own, e.g.
// "[job bg-3 exited 0] `go test ./...` (1m02s, 4.1 KB of output) — read it with job_output".
func Notice(rec protocol.JobRecord) string {
	var status string
	switch rec.State.Kind {
	case protocol.JobStateExited:
		status = fmt.Sprintf("exited %d", rec.State.Code)
	case protocol.JobStateStopped:
		status = "stopped: " + strings.ReplaceAll(rec.State.Reason, "_", " ")
	default:
		status = rec.State.Kind
	}
	var elapsed time.Duration
	if rec.FinishedAtMs != nil {
		elapsed = time.Duration(*rec.FinishedAtMs-rec.StartedAtMs) * time.Millisecond
	}
	size := "no output"
	if rec.OutputBytes > 0 {
		size = FormatBytes(rec.OutputBytes) + " of output"
	}
	return fmt.Sprintf("[job %s %s] `%s` (%s, %s) — read it with job_output",
		rec.ID, status, ShortCommand(rec.Command, 60), FormatDuration(elapsed), size)
}

// ShortCommand is the first non-blank line of cmd, cut to at most n
// characters (ending in "…" when shortened).
func ShortCommand(cmd string, n int) string {
	lines := strings.Split(strings.TrimSpace(cmd), "\n")
	s := strings.TrimSpace(lines[0])
	cut := len(lines) > 1
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:max(n-1, 0)])
		cut = true
	}
	if cut {
		s += "…"
	}
	return s
}

// FormatDuration renders a duration for people: 0.4s, 12s, 1m02s, 2h05m.
func FormatDuration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	case d < time.Hour:
		s := int(d.Round(time.Second).Seconds())
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		m := int(d.Round(time.Minute).Minutes())
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
}

// FormatBytes renders a size for people: 812 B, 4.1 KB, 12.0 MB.
func FormatBytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}

// Job returns the current record of job id.
func (m *Manager) Job(id string) (protocol.JobRecord, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[id]
	if !ok {
		return protocol.JobRecord{}, false
	}
	return m.record(j), true
}
