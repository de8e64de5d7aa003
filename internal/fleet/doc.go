// Package fleet runs coding tasks in the background on any number of
// workers, over NATS JetStream: a work-queue stream holds the task ids to
// run, a key-value bucket holds each task's record (state, attempts,
// session, result, cost), and one subject per task holds its session
// events, so every machine connected to the same NATS sees the same
// queue, records and logs.
//
// Delivery is at least once, completion exactly once: a worker holds a
// task by acknowledging progress while it runs; a worker that dies stops
// doing so, the message is delivered again after the ack wait, and the
// next worker takes the task over (attempt + 1) and resumes its durable
// session — unless the worker running it answers that it does (a task
// whose worker lives is never taken from it). Every change of a record is
// a revision-checked update, and a worker may only finish the attempt it
// started. A task's end is its end marker, published once (the first
// wins) and before the record changes, so a task ends once whatever the
// retries and kills, and a finished record always has its marker.
//
// A task's session log streams beside its events (whole lines with their
// offsets), so a worker that resumes the task in a fresh workspace restores
// the session and continues it.
//
// Best-of-N runs are chosen by Choose: the verify command, then the fewest
// changed lines, or a judging model (EngineJudge) with a fallback to that
// rule. RunLocal does best-of-N on one machine without a queue (openseek
// run --runs N).
//
// With no NATS URL, the first process that needs one starts an embedded
// JetStream server (state under ~/.openseek/fleet/) and others on the
// machine connect to it, following it through server.url when it moves;
// when its process ends, a worker starts it again and carries on.
package fleet
