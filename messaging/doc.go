// Package messaging runs the worker's request pipeline on NATS JetStream with a Watermill router.
//
// Topology (created or updated idempotently by EnsureTopology at start, safe when replicas race):
//   - one stream (default WORKER_REQUESTS) capturing every request subject of contract v1, limits
//     retention with a max age (default 24 h) so requests stay replayable;
//   - one durable pull consumer per subject (ConsumerName), shared by every replica, so each
//     request is handled by one replica;
//   - a dead-letter stream (default WORKER_DEADLETTER) capturing deadletter.>.
//
// The buckets the pipeline uses are created beside it, not by EnsureTopology: EnsureReplies
// creates the KV bucket of recorded replies and running markers (WORKER_REPLIES: one execution
// per request, replies.go and running.go), and the claim-check Object Store
// bucket is package claimcheck's (claimcheck.EnsureConfig, called by service.New).
//
// Delivery: a message is acked only after its reply was published (or, for a failure that cannot
// succeed, after the error reply and the dead letter were published). A transient failure is retried
// in-process a few times, then nak'ed with a back-off so JetStream redelivers it, possibly to another
// replica; on its last delivery (MaxDeliver) it is answered with an error and dead-lettered instead.
// A worker that dies mid-message loses nothing: its heartbeats (in progress, every AckWait/3) stop and
// JetStream redelivers after AckWait, 10 s by default, whatever the handler's time. When the last
// delivery itself never completes, JetStream's max-deliveries advisory reaches one replica, which
// answers the caller and dead-letters the request (exhausted.go).
package messaging
