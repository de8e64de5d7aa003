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

func (VerifyStarted) EventName() string { return "verify_started" }

func (e VerifyStarted) appendFields(b []byte) []byte {
	b = appendStrField(b, "command", e.Command)
	return appendIntField(b, "attempt", e.Attempt)
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

func (VerifyResult) EventName() string { return "verify_result" }

func (e VerifyResult) appendFields(b []byte) []byte {
	b = appendStrField(b, "command", e.Command)
	b = appendIntField(b, "exit_code", e.ExitCode)
	b = appendBoolField(b, "ok", e.OK)
	b = appendBoolField(b, "timed_out", e.TimedOut)
	b = appendIntField(b, "attempt", e.Attempt)
	return appendStrField(b, "output", e.Output)
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

func (UnverifiedClaim) EventName() string { return "unverified_claim" }

func (e UnverifiedClaim) appendFields(b []byte) []byte {
	b = appendStrField(b, "session", e.Session)
	b = appendStrField(b, "claim", e.Claim)
	b = appendStrField(b, "quote", e.Quote)
	return appendStrField(b, "message", e.Message)
}

func parseVerifyEvent(name string, f *fields) Event {
	switch name {
	case "unverified_claim":
		return UnverifiedClaim{Session: f.str("session"), Claim: f.str("claim"), Quote: f.str("quote"), Message: f.str("message")}
	case "verify_started":
		return VerifyStarted{Command: f.str("command"), Attempt: f.int("attempt")}
	case "verify_result":
		return VerifyResult{
			Command:  f.str("command"),
			ExitCode: f.int("exit_code"),
			OK:       f.bool("ok"),
			TimedOut: f.bool("timed_out"),
			Attempt:  f.int("attempt"),
			Output:   f.str("output"),
		}
	}
	return nil
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
