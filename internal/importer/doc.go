// Package importer turns another coding agent's transcript — a Codex CLI
// rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) or a Claude Code
// session (~/.claude/projects/<dir>/<uuid>.jsonl) — into OpenSeek session
// items, ready to be appended to a new session log.
//
// User and assistant messages, reasoning summaries, tool calls and their
// results come across. Tool calls whose meaning matches one of OpenSeek's
// tools are rewritten as calls of that tool (Codex's exec_command, shell,
// shell_command and apply_patch; Claude Code's Bash, Read, Edit and
// Write), with paths under the transcript's working directory made
// relative to it; any other call is kept as a foreign call under its
// original name and arguments, with its recorded result.
//
// Invariant: the items always project to a history a provider accepts.
// Consecutive assistant output is one assistant item until a tool result
// or a user message intervenes, consecutive user messages are joined,
// results that answer no earlier call are dropped (with a warning), and a
// call left unanswered is answered by the projection's synthetic error.
// Each finished turn ends with a Finished terminal carrying its answer.
// A Claude Code file is read along the branch (parentUuid) that ends with
// its last message; a Codex compaction becomes a summary of what came
// before it.
//
// Input is read line by line: a line that is not a JSON object fails the
// import with an error naming the file and line, except an unterminated
// last line (a transcript cut off mid-write), which is skipped with a
// warning, as session.Store does for its own logs.
package importer
