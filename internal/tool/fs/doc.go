// Package fs holds the file tools the model edits the workspace with:
// read, write, edit, multi_edit and remove, and apply_patch (Codex's
// patch format, package patch) for the models trained on it.
//
// Invariants:
//   - Every path goes through tool.Env.Resolve: a path that is, or leads
//     through a symlink, outside the workspace is refused before any file
//     is touched.
//   - The resolved path is then checked (env.Guard) and acted on by the
//     same names: it is walked without following any symlink (package
//     beneath), and nothing inside a protected directory pinned at the
//     session's start changes, whatever it is named by then. A symlink
//     swapped in after the check fails the call instead of redirecting it.
//   - Writes are atomic (temporary file + sync + rename in the same open
//     directory, the temporary file removed on any failure) and keep the
//     mode of the file they replace.
//   - multi_edit is all-or-nothing: every edit is validated against the
//     original content of its file before anything is written.
//   - remove deletes only regular files the agent created this session and
//     nobody changed since (tool.FileState provenance).
//
// Behaviour the model relies on (texts are those of the OpenSeek
// reference, openseek-tools.md §1-5):
//   - read shows "<n>\t<line>" lines and one trailing
//     "<system>start_line=… shown_lines=… total_lines=… truncated=…</system>"
//     footer; max_output_chars (default 12000, cap 50000, UTF-16 units,
//     gutters included) bounds the body, and a truncated read is an error
//     result so the model notices. A directory lists its entries (dirs end
//     in "/"); a missing file suggests a close name; binary files are
//     refused.
//   - edit replaces the first match of old_string at or after start_line
//     (up to end_line); without start_line, old_string must match exactly
//     once. An empty old_string inserts at the start of start_line; the
//     line after the last appends. A CRLF file takes LF old/new strings and
//     stays CRLF. A miss names where the text does occur, or the closest
//     line.
//   - write creates missing parent directories.
//   - Result.Data is {"outcome": …, "path": …} (multi_edit: "paths"), the
//     path relative to the workspace.
package fs
