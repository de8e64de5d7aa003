package agent

import (
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// health is what the context_health event reports beside the ledger's
// counts. It is used by the running turn (or compaction) only.
type health struct {
	counted     bool // compactions was counted from the log
	compactions int
	ratio       float64 // the last calibrated bytes per token; 0 = none yet
}

// compactions is how many summaries the session holds: counted from the
// log once, then kept up to date by compact.
func (a *Agent) compactions() int {
	if !a.health.counted {
		a.health.counted = true
		for _, e := range a.cfg.Log.Session().Events {
			if _, ok := e.Item.(*session.Summary); ok {
				a.health.compactions++
			}
		}
	}
	return a.health.compactions
}

// ratio is the bytes-per-token ratio of the last request, or the
// meter's default before any.
func (a *Agent) ratio() float64 {
	if a.health.ratio > 0 {
		return a.health.ratio
	}
	return 4
}

// reportContext emits the context's health with used tokens.
func (a *Agent) reportContext(used int) {
	a.cfg.Emit(protocol.ContextHealth{UsedTokens: used, Window: a.cfg.Window, Compactions: a.compactions(),
		RereadsAvoided: a.ledger.avoided, RereadBytesSaved: a.ledger.saved})
}
