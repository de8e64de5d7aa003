// Package hooks runs the user's hook commands at fixed points of a session,
// in Claude Code's hooks.json shape so existing hooks work unchanged:
//
//	{"hooks": {"PreToolUse": [{"matcher": "edit|write",
//	  "hooks": [{"type": "command", "command": "./check.sh", "timeout": 60}]}]}}
//
// Files are ~/.openseek/hooks.json and <workspace>/.openseek/hooks.json; the
// workspace file runs commands a repository's author wrote, so it is read
// only when trusted (as .mcp.json is). A missing file is not an error; a
// malformed one is reported as "path: reason" and the other files load.
//
// A hook is `sh -c <command>` run in the session's working directory with
// CLAUDE_PROJECT_DIR and OPENSEEK_PROJECT_DIR set to it and one JSON object
// on stdin: session_id, transcript_path, cwd, hook_event_name, and per
// event tool_name + tool_input (PreToolUse), + tool_response (PostToolUse),
// prompt (UserPromptSubmit), stop_hook_active (Stop), trigger (PreCompact),
// trigger + summary (PostCompact), source (SessionStart), reason
// (SessionEnd). A PostCompact hook may replace the summary the model
// wrote: stdout {"hookSpecificOutput": {"summary": "…"}}.
//
// What a hook's exit means:
//   - 0: passes. Stdout may be JSON as Claude Code documents it:
//     {"decision":"block","reason":…} blocks; {"continue":false,
//     "stopReason":…} halts the turn; hookSpecificOutput.permissionDecision
//     (PreToolUse: allow | deny | ask, with permissionDecisionReason) and
//     updatedInput; hookSpecificOutput.additionalContext adds context for
//     the model; systemMessage is shown to the user. Plain stdout of a
//     UserPromptSubmit or SessionStart hook is context for the model.
//   - 2: blocks, with stderr as the reason the model (or user) reads: the
//     tool call does not run (PreToolUse), the tool's output is followed by
//     the reason (PostToolUse), the prompt is refused (UserPromptSubmit), or
//     stopping turns into "keep going" (Stop). SessionStart, SessionEnd,
//     PreCompact and PostCompact cannot block: their exit 2 is reported
//     like an error.
//   - anything else, a timeout (default 60 s) or a failure to start: a
//     reported, non-blocking error.
//
// Key invariants: hooks of an event run one after another in file order;
// the same command matched twice runs once; at its timeout or when ctx is
// cancelled a hook's whole process group is killed, so a hook that hangs
// never holds up the session past its timeout. A Runner holds no mutable
// state and is safe for concurrent use; a nil *Runner runs nothing.
package hooks
