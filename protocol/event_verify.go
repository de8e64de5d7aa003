package protocol

import "strconv"

// Build verification events (an OpenSeek addition to the reference: old
// clients ignore them). After a turn that changed files the engine runs
// the project's check before the answer is accepted; every run is one
// verify_started, then one verify_result when it ends.

// VerifyStarted says the project's check is running: a frontend shows
// "checking: <command>" with its elapsed time until the VerifyResult of
// the same attempt replaces it. Attempt counts the runs of this turn
// from 1.
type VerifyStarted struct {
	Command string
	Attempt int
}

// VerifyResult reports one run of the project's check. Attempt counts the
// runs of this turn from 1; Output is the tail of what the command
// printed (bounded); ExitCode is -1 when it did not exit on its own
// (timeout, could not start).
type VerifyResult struct {
	Command  string
	ExitCode int
	OK       bool
	TimedOut bool
	Attempt  int
	Output   string
}

// UnverifiedClaim says the final answer claims something the session's
// record does not back: Claim is "tests" (the tests pass) or "build"
// (the build succeeds), Quote the answer's words, Message the sentence a
// person reads ("The answer says the tests pass, but no test ran after
// the last edit (step 7)."). It comes just before the turn's
// turn_summary; every face shows it as a warning.
type UnverifiedClaim struct {
	Session string
	Claim   string
	Quote   string
	Message string
}

// Outcome says in words how the run ended: "passed", "failed (exit N)",
// "timed out" or "could not run".
func (e VerifyResult) Outcome() string {
	switch {
	case e.OK:
		return "passed"
	case e.TimedOut:
		return "timed out"
	case e.ExitCode < 0:
		return "could not run"
	}
	return "failed (exit " + strconv.Itoa(e.ExitCode) + ")"
}
