package contracts

// ServiceName is the name the worker registers as a NATS micro service (`nats micro ls`), and the
// queue group its request/reply endpoints share across replicas.
const ServiceName = "artifact-worker"

// RequestReplyPrefix prefixes the plain request/reply subject of every request subject:
// artifact-worker.tool.get_artifact answers a core NATS request (`nc.request`, `nats req`) for
// tool.get_artifact. The worker's stream does not capture these subjects: the worker stores the
// request in the stream on the v1 subject (with Reply-To set to the caller's reply inbox and
// Nats-Msg-Id to its request_id) and the stored request is answered like any other, so a plain
// request is as durable as one published to JetStream.
const RequestReplyPrefix = ServiceName + "."

// RequestReplySubject returns the plain request/reply subject of a v1 request subject.
func RequestReplySubject(subject string) string { return RequestReplyPrefix + subject }

// CodeDuplicateRequest answers a plain request whose request_id JetStream already holds (it drops a
// repeated Nats-Msg-Id for two minutes): the request was not stored again, and its reply went to the
// first sender. Send a new request_id to ask again.
const CodeDuplicateRequest = "duplicate_request"
