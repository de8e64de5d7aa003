// Package shell holds the command tools: shell runs a command, job_output
// reads a background job's output, job_stop ends a job.
//
// Invariants:
//   - A command runs as `bash -c` (else `sh -c`) in its own process group
//     with stdin at /dev/null; stdout and stderr are merged in order. The
//     working directory is the workspace root or cwd, which must resolve
//     (symlinks followed) inside the workspace.
//   - Cancelling the call's context kills the process group at once
//     (SIGTERM, SIGKILL after half a second) unless the command already
//     became a background job, which outlives the call.
//   - Long output does not end a command: the answer keeps its head and
//     tail and the footer says what was cut. Only the spool cap (64 MiB
//     by default) kills it, reported as killed_at_output_cap=true.
//
// Behaviour the model relies on (openseek-tools.md §6-7):
//   - shell answers `<output>` then `<system>exit=N</system>`; a non-zero
//     exit is an error result. Cut output adds `truncated=true
//     shown_chars=… total_chars=…` to the footer; max_output_chars defaults
//     to 12000 and is capped at 50000.
//   - timeout_ms defaults to 120000 (600000 when there are no background
//     jobs) and may not exceed 600000. When it runs out and the session has
//     a job table the command moves to the background as job bg-N and keeps
//     running with its output so far; without one the group is killed and
//     the answer is `error: shell command timed out after <n>ms`.
//     background:true starts the job at once. A job that ends on its own
//     produces a notice for the model (see package jobs).
//   - job_output shows a 12000-character window (the tail, or from offset)
//     and `<system>job=bg-N running|exit=N|stopped …</system>`; a non-zero
//     exit, a stop or binary output make it an error result.
//   - job_stop ends a running job (a no-op for one that already ended);
//     an unknown id is `error: no background job with id …`.
package shell
