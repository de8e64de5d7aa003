package main

import (
	"encoding/json"
	"sync"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/protocol"
)

// runReport gathers, from the event stream, what `run --format json`
// prints when the run ends (protocol.RunResult).
type runReport struct {
	mu  sync.Mutex
	res protocol.RunResult
}

func newRunReport() *runReport {
	return &runReport{res: protocol.RunResult{Version: 1, Warnings: []string{},
		Compactions: []protocol.RunCompaction{}, CompactionFailures: []string{}}}
}

// observe is the run's event sink: nothing is printed as the run goes.
func (r *runReport) observe(e protocol.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := e.(type) {
	case protocol.SessionStarted:
		id := e.Session
		r.res.Session = &id
	case protocol.TurnSummary:
		r.res.Steps, r.res.DurationMs, r.res.Usage, r.res.CostUSD = e.Steps, e.DurationMs, e.Usage, e.CostUSD
	case protocol.ContextHealth:
		r.res.Context = &protocol.RunContext{UsedTokens: e.UsedTokens, Window: e.Window, Compactions: e.Compactions,
			RereadsAvoided: e.RereadsAvoided, RereadBytesSaved: e.RereadBytesSaved}
	case protocol.CompactionReport:
		r.res.Compactions = append(r.res.Compactions, protocol.RunCompaction{Trigger: e.Trigger, FromSequence: e.FromSequence,
			ToSequence: e.ToSequence, Turns: e.Turns, Files: append([]string{}, e.Files...), TokensBefore: e.TokensBefore,
			TokensAfter: e.TokensAfter, HookReplaced: e.HookReplaced})
	case protocol.CompactionFailed:
		r.res.CompactionFailures = append(r.res.CompactionFailures, e.Error)
	case protocol.AutoCompactionFailed:
		r.res.CompactionFailures = append(r.res.CompactionFailures, e.Error)
	}
	if w, ok := protocol.Warning(e); ok {
		r.res.Warnings = append(r.res.Warnings, w)
	}
}

// result completes the report with how the turn ended (err: the run
// stopped outside the turn) and the exit status.
func (r *runReport) result(out engine.Outcome, err error, noSession bool) protocol.RunResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := r.res
	if noSession {
		res.Session = nil
	}
	switch {
	case err != nil:
		res.Status, res.ExitCode = "error", exitUsage
		reason := err.Error()
		res.Reason = &reason
	case engine.EndingOf(out) == engine.EndFinished:
		res.Status, res.ExitCode = string(out.Kind), exitDone
		answer := out.Answer
		res.Answer = &answer
	default:
		res.Status, res.ExitCode = string(out.Kind), exitCode(out)
		reason := out.Answer
		if reason == "" {
			reason = string(out.Kind)
		}
		res.Reason = &reason
	}
	return res
}

// marshalResult is the result's one line.
func marshalResult(res protocol.RunResult) []byte {
	b, _ := json.Marshal(res)
	return b
}
