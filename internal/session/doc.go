// Package session is OpenSeek's durable session log: one JSON Lines file per
// conversation (a header line, then one sequenced event per line), the store
// that creates, appends to, loads and lists those files, and the projection
// of a log into the chat messages a model sees.
//
// On disk a session lives in <root>/sessions/<id>/ as
// openseek_session-<id>.jsonl, beside the advisory session.lock, the
// writer.lock lease and an optional session-title sidecar. The format is the
// one reference/openseek-session-format.md gives, byte for byte: optional
// fields are omitted, keys are written in the reference's order, tool result
// data is kept verbatim, and legacy terminal encodings are written back the
// way they were read, so loading and re-writing a file reproduces it.
//
// Invariants:
//   - Sequences are 1-based and contiguous; raw events are never rewritten
//     (compaction appends a summary that only changes the projection).
//   - One writer at a time: a Writer holds a non-blocking exclusive flock on
//     writer.lock for its whole life, released on Close or process death. A
//     second OpenWriter fails with an error naming the holder (pid, command,
//     start time). Each load takes session.lock shared; each append takes it
//     exclusive.
//   - A torn final line (a crash mid-append) is tolerated on load and
//     repaired by an atomic rewrite on the next append; any other damage
//     fails the load and nothing is written. Load never writes.
//   - An append whose in-memory snapshot no longer matches the file is
//     refused ("stale session snapshot for <id>"). Appends are a single
//     O_APPEND write followed by fdatasync; first writes and repairs go
//     through a temp file, fsync, rename and a directory fsync.
//   - A file whose header declares a version other than 1 is refused and
//     left untouched.
//
// The projection (Session.Messages) replaces summarised ranges by their
// summary at the range start, gives dangling tool calls a synthetic error
// result, drops orphan results and turns terminals into status text.
// A Projection keeps it up to date as the log grows, taking in only the
// events appended since it last looked (afresh after a summary or a
// rewind), so a step of a long session does not re-project the whole log.
// Session.Goal derives the standing goal from runtime-notice markers.
// Session.Turns lists the turns with the workspace snapshot taken before
// each ("[snapshot] commit=<id>" notices); a "[rewind] from_sequence=<n>"
// notice hides events from the projection (a conversation rewind), and
// "[approval] <event line>" notices record each approval question and its
// answer (ParseApproval). These markers are OpenSeek extensions that the
// projection never shows. So are the calls a tool made on its own (the
// script tool's): tool results with "parent" (the calling tool's call id)
// and "arguments", under the id "<parent>.<n>", recorded before the
// parent's own result.
//
// Event lines are decoded token by token with jsontext (the encoding/json/v2
// text layer, github.com/go-json-experiment/json) straight into typed
// items, rather than with encoding/json, whose reflection made a
// 100,000-event load several times slower. Syntax is checked strictly (the
// fuzz target checks every accepted line against encoding/json); strings
// decode as encoding/json decodes them (invalid UTF-8 and lone surrogates
// become U+FFFD) and a duplicated key is allowed, the last one winning. Items are
// *User, *Assistant, *ToolResult, *Notice, *Summary and *Terminal; their
// tag is Item.ItemKind (not Kind: Terminal has a Kind field).
package session
