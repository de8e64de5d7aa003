// Package verify closes the loop on a turn that changed files: before the
// model's answer is accepted, the project's check runs (a configured
// command, or one detected from the project's files: go.mod → `go build
// -o /dev/null ./... && go vet ./...`, Cargo.toml → `cargo check`,
// package.json → its typecheck script or `tsc --noEmit`,
// pyproject.toml/setup.py → compileall). When the check fails, the tail
// of its output goes back to the model as a user message and the turn
// continues, up to MaxRepairs times.
//
// Invariants:
//   - A turn whose files did not change (a stat scan of the workspace at
//     the turn's start and at its answer, .git and dependency folders
//     left out) is never verified: shell edits count as much as file
//     tools.
//   - A detected check writes no file into the workspace: build output
//     goes to /dev/null or to a scratch directory outside the workspace
//     (Check.Scratch), removed when the run ends.
//   - Every run is announced before it starts (Report.Started) and
//     reported when it ends (Report.Finished), so a frontend can show the
//     running check.
//   - The check runs like a shell command (jobs.Spawn, the session's
//     sandbox) with a timeout; a command that does not end is killed with
//     its process group and counts as a failure.
//   - What the model and the session see is bounded: the last
//     Settings.OutputBytes of the output.
package verify
