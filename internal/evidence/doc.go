// Package evidence checks a final answer's claims against the session's
// record: when the answer says the tests pass or the build succeeds, the
// last test (or build) run in the session must have passed after the last
// edit. A claim the record does not back becomes a warning every face
// shows (protocol.UnverifiedClaim).
//
// Both sides are conservative. A claim is an English sentence that states
// it ("all tests pass", "the build succeeds", "tests are green"), not one
// that plans or conditions it ("run go test to check that the tests
// pass"). A run is a shell command recognised as a test or build (go
// test, cargo test, npm test, pytest, make test…; go build, cargo build,
// tsc…), also inside a script, or a run of the verifier; an edit is a
// successful call of a file tool (write, edit, multi_edit, apply_patch,
// remove). A file changed by a shell command is not seen as an edit.
package evidence
