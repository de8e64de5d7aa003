// Package protocol is the OpenSeek wire protocol: JSONL events written by the
// engine on stdout and JSONL commands read by `openseek serve` on stdin.
//
// Every event is a struct implementing [Event]; [Emit] encodes it as one
// compact JSON object with "event" first and the payload fields flat, in the
// fixed key order of the reference (docs: reference/openseek-protocol.md).
// Optional strings are written as null, except the few the reference marks
// as written only when present (steer submission ids, subrun_finished's
// unaccounted, a job record's data). [ParseEvent] is the inverse of Emit; it
// never fails loudly: a line that is not an object, names an unknown or
// removed event (fleet_started, runtime_update), or has a missing or
// mistyped required field is reported as "not an event" so that old clients
// keep working with newer engines. Integers must be integral JSON numbers
// that fit a signed 32-bit int (job timestamps and byte counts: non-negative
// and at most 2^53-1). Unknown extra keys, including the old log-envelope
// keys timestamp/level/source, are ignored.
//
// Commands implement [Command]. [ParseCommand] either returns a command or
// an error whose text is the exact string the engine reports back in a
// command_error event; legacy `text`/`images` prompt and steer forms are
// still accepted. [EmitCommand] writes the canonical form.
//
// [Content] (a bare string for exactly one text part, else an array of
// parts) and [Usage] carry their own JSON methods so the session file can
// reuse them. Images are validated on decode: canonical padded base64, at
// most 5 MiB, and a media type that matches the magic bytes.
//
// Key invariant: for every value v that ParseEvent (ParseCommand) accepts,
// parsing Emit(v) (EmitCommand(v)) yields v again, and Emit output is byte
// for byte what the upstream engine writes.
//
// [Writer] serialises events onto one stream, one whole line per event,
// in call order, and drops events after Close.
package protocol
