package service

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/workspace"
)

// Permission is one NATS permission the worker's user needs (docs/operations.md, "Credentials and
// TLS", lists the same, as nsc flags).
type Permission struct {
	// Publish, else subscribe.
	Publish bool
	// Subject as granted, e.g. "$KV.WORKSPACE_FILES.>".
	Subject string
	// probes are the subjects under Subject the worker uses, tried at start-up.
	probes []string
}

func (p Permission) String() string {
	if p.Publish {
		return "publish " + strconv.Quote(p.Subject)
	}
	return "subscribe " + strconv.Quote(p.Subject)
}

// WorkerPermissions are the permissions the worker's user needs: publish and subscribe subjects of the
// JetStream API, acks, flow control, its KV buckets and object stores, dead letters, the request
// subjects (the plain request/reply front stores requests there), replies on _INBOX.>, the
// max-deliveries advisory and the micro service.
func WorkerPermissions() []Permission {
	pub := func(subject string, probes ...string) Permission {
		return Permission{Publish: true, Subject: subject, probes: probes}
	}
	sub := func(subject string, probes ...string) Permission {
		return Permission{Subject: subject, probes: probes}
	}
	const probe = "permission-probe"
	stream := messaging.DefaultStream
	perms := []Permission{
		pub("$JS.API.>", "$JS.API.INFO"),
		pub("$JS.ACK."+stream+".>", "$JS.ACK."+stream+".permission_probe.1.1.1.0.0"),
		pub("$JS.FC.>", "$JS.FC."+probe),
		pub("$KV."+workspace.DefaultMetaBucket+".>", "$KV."+workspace.DefaultMetaBucket+"."+probe),
		pub("$KV."+historyimage.DefaultKVBucket+".>", "$KV."+historyimage.DefaultKVBucket+"."+probe),
		pub("$KV."+contracts.ReplyBucket+".>", "$KV."+contracts.ReplyBucket+"."+probe),
		pub("$O."+contracts.ClaimCheckBucket+".>", "$O."+contracts.ClaimCheckBucket+".C."+probe),
		pub("$O."+historyimage.DefaultObjectBucket+".>", "$O."+historyimage.DefaultObjectBucket+".C."+probe),
		pub(contracts.DeadLetterPrefix+">", contracts.DeadLetterPrefix+probe),
	}
	var endpoints []string
	for _, s := range contracts.RequestSubjects {
		perms = append(perms, pub(s, s))
		endpoints = append(endpoints, contracts.RequestReplySubject(s))
	}
	return append(perms,
		pub("_INBOX.>", "_INBOX."+probe),
		sub("_INBOX.>", "_INBOX."+probe),
		sub("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+stream+".*", "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+stream+".*"),
		sub(contracts.RequestReplyPrefix+">", endpoints...),
		sub("$SRV.>", "$SRV.PING", "$SRV.INFO."+contracts.ServiceName, "$SRV.STATS."+contracts.ServiceName),
	)
}

// provePermissions tries every permission on nc before the worker reports ready: it publishes to a
// subject under each publish permission and subscribes to those under each subscribe permission,
// and reports the ones the server refused (a SettingError naming NATS_CREDS and each permission).
//
// Nothing it publishes is stored or acted on: messages that a stream captures (a request subject, a
// KV key, an object chunk, a dead letter) carry Nats-Expected-Last-Subject-Sequence set to the
// largest sequence, so the stream rejects them; the others go where nothing listens. Its
// subscriptions last one round trip.
func provePermissions(ctx context.Context, nc *nats.Conn, perms []Permission) error {
	var missing []string
	for _, p := range perms {
		for _, subject := range p.probes {
			refused, err := refuses(ctx, nc, p.Publish, subject)
			if err != nil {
				return fmt.Errorf("checking the NATS permissions (%s): %w", p, err)
			}
			if refused {
				missing = append(missing, p.String())
				break
			}
		}
	}
	if len(missing) > 0 {
		return &SettingError{Settings: "NATS_CREDS", Err: fmt.Errorf("the worker's NATS user may not %s (docs/operations.md, \"Credentials and TLS\", lists every permission it needs): %w",
			strings.Join(missing, ", "), nats.ErrPermissionViolation)}
	}
	return nil
}

// refuses reports whether the server refuses publishing (or subscribing) to subject: it answers a
// refusal with -ERR before the PONG of the next flush, and nats.go records it as the connection's
// last error.
func refuses(ctx context.Context, nc *nats.Conn, publish bool, subject string) (bool, error) {
	var what string
	if publish {
		what = "Publish to \"" + subject + "\""
		msg := &nats.Msg{Subject: subject, Reply: nc.NewInbox(), Header: nats.Header{}}
		msg.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(math.MaxUint64, 10))
		if err := nc.PublishMsg(msg); err != nil {
			return false, err
		}
	} else {
		what = "Subscription to \"" + subject + "\""
		sub, err := nc.SubscribeSync(subject)
		if err != nil {
			return false, err
		}
		defer sub.Unsubscribe() //nolint:errcheck // the connection closes after the probes
	}
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := nc.FlushWithContext(fctx); err != nil {
		return false, err
	}
	last := nc.LastError()
	return errors.Is(last, nats.ErrPermissionViolation) && strings.Contains(last.Error(), what), nil
}
