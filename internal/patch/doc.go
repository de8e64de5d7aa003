// Package patch parses and applies patches in the format OpenAI's Codex
// models write (the apply_patch tool):
//
//	*** Begin Patch
//	*** Add File: path        followed by "+" lines
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: new/path     (optional; overwrites an existing file)
//	@@ optional context line  (a line to find first, e.g. a func header)
//	 context / -removed / +added lines
//	*** End of File           (optional: the chunk ends at the file's end)
//	*** End Patch
//
// Parsing is lenient the way Codex's is: padded markers, CRLF, and a shell
// heredoc wrapper (apply_patch <<'EOF' … EOF) are accepted. Lines are
// located in passes from strict to lenient: exact, trailing whitespace
// ignored, surrounding whitespace ignored, Unicode punctuation read as
// ASCII. A mostly-CRLF file stays CRLF; an updated file ends in a newline.
//
// Invariant: a patch is all or nothing. Plan locates every chunk of every
// file against the files as earlier hunks left them, in memory; only then
// does Commit write, each file atomically, restoring the files already
// written if a later write fails. (Codex's own tool leaves the hunks
// before a failing one applied; this one never half-applies.) Errors name
// the file, the hunk and the patch line that failed.
package patch
