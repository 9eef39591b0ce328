package messaging

import (
	"strconv"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
)

// scopeSeparator joins the values of a repeated scope header in the message's metadata: a newline
// cannot be part of a header value, so the pipeline tells one value from several.
const scopeSeparator = "\n"

// Metadata keys the unmarshaler adds next to the message's headers. Headers with these names sent
// by a publisher are dropped, so a caller cannot forge a delivery count.
const (
	mdSubject   = "x-worker-subject"
	mdSequence  = "x-worker-stream-seq"
	mdDelivered = "x-worker-delivered"
	mdStored    = "x-worker-stored" // when the stream stored the message, Unix nanoseconds
)

// toMessage turns a JetStream message into a Watermill message. It cannot fail: a message with odd
// headers still reaches the pipeline, which answers or dead-letters it (watermill-nats' unmarshaler
// rejects a repeated header key, and its subscriber then crashed on the nil message). Where a header
// repeats, the first value wins, except the scope header, whose values are all kept (scopeSeparator).
func toMessage(msg jetstream.Msg) *message.Message {
	md := make(message.Metadata, len(msg.Headers())+3)
	var scopes []string
	for k, v := range msg.Headers() {
		if strings.EqualFold(k, contracts.HeaderScope) {
			// Every value, under any spelling of the name: the pipeline refuses a repeated scope
			// rather than pick one (scopeValue).
			scopes = append(scopes, v...)
			continue
		}
		if len(v) > 0 {
			md[k] = v[0]
		}
	}
	if len(scopes) > 0 {
		md[contracts.HeaderScope] = strings.Join(scopes, scopeSeparator)
	}
	delete(md, mdSubject)
	delete(md, mdSequence)
	delete(md, mdDelivered)
	delete(md, mdStored)
	md[mdSubject] = msg.Subject()
	id := md["Nats-Msg-Id"]
	if meta, err := msg.Metadata(); err == nil {
		seq := strconv.FormatUint(meta.Sequence.Stream, 10)
		md[mdSequence] = seq
		md[mdDelivered] = strconv.FormatUint(meta.NumDelivered, 10)
		md[mdStored] = strconv.FormatInt(meta.Timestamp.UnixNano(), 10)
		if id == "" {
			id = meta.Stream + ":" + seq
		}
	}
	m := message.NewMessage(id, msg.Data())
	m.Metadata = md
	return m
}

// delivery describes where a message came from.
type delivery struct {
	subject  string
	sequence uint64
	count    uint64
}

// storedAt is when the stream stored m, or zero when unknown.
func storedAt(m *message.Message) time.Time {
	ns, err := strconv.ParseInt(m.Metadata.Get(mdStored), 10, 64)
	if err != nil || ns <= 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

func deliveryOf(m *message.Message) delivery {
	seq, _ := strconv.ParseUint(m.Metadata.Get(mdSequence), 10, 64)
	n, _ := strconv.ParseUint(m.Metadata.Get(mdDelivered), 10, 64)
	if n == 0 {
		n = 1
	}
	return delivery{subject: m.Metadata.Get(mdSubject), sequence: seq, count: n}
}
