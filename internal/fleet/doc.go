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
// session. Every change of a record is a revision-checked update, and a
// worker may only finish the attempt it started, so a task is completed
// once whatever the retries.
//
// With no NATS URL, the first process that needs one starts an embedded
// JetStream server (state under ~/.openseek/fleet/) and others on the
// machine connect to it.
package fleet
