// Package control holds the tools that steer the turn rather than the
// workspace: plan (a checklist the session records), goal (reports on the
// standing goal) and finish (ends the turn with an answer).
//
// Invariants: these tools touch no files and keep no state — what they
// decide travels in the Result: finish sets Control=Finish with the answer
// as Content; goal returns Data {"status":…} and the runtime notices the
// loop appends ("[goal cleared]", "[goal blocked]\n<reason>"); plan returns
// the plan as Data so the session records it, and renders it as a
// checklist for the model. A plan has at most one step in_progress.
package control

import "github.com/openseek/openseek/internal/tool"

// Tools returns plan, goal and finish. The engine registers goal only
// while a goal stands (tool.Registry.Without("goal") otherwise).
func Tools() []tool.Tool {
	return []tool.Tool{Plan(), Goal(), Finish()}
}
