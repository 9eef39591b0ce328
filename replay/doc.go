// Package replay runs requests stored in the worker's JetStream stream back through the current
// handlers, for debugging: "what would today's code answer to yesterday's requests?".
//
// Run reads the stream (WORKER_REQUESTS by default) with an ordered consumer, optionally filtered by
// subject and bounded by a start (sequence or time), an end (sequence or time) and a count. Every
// request goes through messaging.Process exactly as the pipeline would run its first delivery; the
// request and the reply the current code gives are written as one JSON line (see Line). Replay
// always ends: it stops at the stream's last sequence as of the moment it started, so requests that
// arrive while it runs are not replayed.
//
// Nothing is ever sent to a request's original Reply-To. With Options.PublishTo each reply is also
// published with core NATS to that subject (through the claim check when it is too large). With
// Options.Results each reply is kept in a results stream (ResultsStream, one message per request
// sequence) and compared with the reply an earlier replay stored, so a replay shows which replies
// changed; see Line.Changed.
//
// Replay runs handlers with their side effects: replaying workspace.file_written records the write
// again, context.preprocess fills the history image cache. Filter by subject (tool.get_artifact,
// artifact.metadata, tool.get_history_image are read-only) to avoid them.
//
// Outcomes of a line, as the pipeline would treat the request:
//   - "ok": the handler succeeded;
//   - "error_reply": a permanent error, answered at once (artifact_not_found, invalid_request ...);
//   - "poison": the pipeline would answer with an error and dead-letter it (undecodable body,
//     missing request_id, expired claim check, a handler panic);
//   - "transient": a dependency failed (storage or NATS unavailable); the pipeline would retry it;
//   - "skipped": no handler serves the message's subject; it was not run.
package replay
