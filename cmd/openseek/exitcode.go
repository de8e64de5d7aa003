package main

import "github.com/openseek/openseek/internal/engine"

// Exit statuses of `openseek run` (docs/scripting-ci.md: Exit codes). 1 stays what the
// reference CLI gives an argument error, and covers every run that could
// not start or record; a turn that ran and ended badly says how.
const (
	exitDone        = 0   // the turn finished
	exitUsage       = 1   // a usage error, or the run could not start or record (no key, unknown model, session locked or gone)
	exitFailed      = 2   // the turn failed otherwise (the project's check rejected the answer, …)
	exitModel       = 3   // the model or provider failed (a request failed after its retries)
	exitRefused     = 4   // the prompt was refused (a UserPromptSubmit hook) or the turn was aborted
	exitLimit       = 5   // a limit was hit: --max-steps, --max-cost, the context window, the loop guard
	exitInterrupted = 130 // interrupted (Ctrl-C, SIGTERM, a closed stdout)
)

// exitCode is run's exit status for a turn's outcome.
func exitCode(out engine.Outcome) int {
	switch engine.EndingOf(out) {
	case engine.EndFinished:
		return exitDone
	case engine.EndInterrupted:
		return exitInterrupted
	case engine.EndLimit:
		return exitLimit
	case engine.EndModel:
		return exitModel
	case engine.EndRefused:
		return exitRefused
	}
	return exitFailed
}
