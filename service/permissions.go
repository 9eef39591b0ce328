package service

import (
	"context"
	"encoding/base64"
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
	// probes are the subjects under Subject the worker uses, with their real tokens, tried at
	// start-up: a grant narrowed below one of them is refused as a missing one is.
	probes []probe
}

// probe is one subject tried at start-up: published with body (nil: empty), or subscribed to in
// queue (empty: a plain subscription).
type probe struct {
	subject string
	body    []byte
	queue   string
}

func (p Permission) String() string {
	if p.Publish {
		return "publish " + strconv.Quote(p.Subject)
	}
	return "subscribe " + strconv.Quote(p.Subject)
}

// apiProbeBody is the body of every JetStream API probe: JSON the server cannot parse, so each
// request is answered with an error and does nothing (a purge of nothing, no consumer created, no
// message pulled).
var apiProbeBody = []byte(`{"permission_probe":`)

// ackProbeBody is the body of the ack probes: no ack, nak, heartbeat or term, which the consumer
// ignores.
var ackProbeBody = []byte("permission-probe")

// WorkerPermissions are the permissions the worker's user needs: publish and subscribe subjects of the
// JetStream API, acks, flow control, its KV buckets and object stores, dead letters, the request
// subjects (the plain request/reply front stores requests there), replies on _INBOX.>, the
// max-deliveries advisory and the micro service. Each is proven by the subjects the worker really
// uses under it: the API calls on its streams, consumers and buckets by name, the acks of each
// consumer, KV keys and object chunks and metadata shaped as the worker writes them.
func WorkerPermissions() []Permission {
	pub := func(subject string, probes ...probe) Permission {
		return Permission{Publish: true, Subject: subject, probes: probes}
	}
	sub := func(subject string, probes ...probe) Permission {
		return Permission{Subject: subject, probes: probes}
	}
	plain := func(subjects ...string) []probe {
		var out []probe
		for _, s := range subjects {
			out = append(out, probe{subject: s})
		}
		return out
	}
	hex64 := strings.Repeat("0123456789abcdef", 4) // a sha256 in hex, as KV keys carry it
	id := nats.NewInbox()[len("_INBOX."):]         // a NUID, as object chunks and inboxes carry it
	stream := messaging.DefaultStream
	claims := contracts.ClaimCheckBucket
	blobs := historyimage.DefaultObjectBucket
	objName := func(name string) string { return base64.URLEncoding.EncodeToString([]byte(name)) }
	kvKeys := map[string]string{
		workspace.DefaultMetaBucket:  "$KV." + workspace.DefaultMetaBucket + ".permission-probe." + hex64,
		historyimage.DefaultKVBucket: "$KV." + historyimage.DefaultKVBucket + ".history_image_" + hex64[:32],
		contracts.ReplyBucket:        "$KV." + contracts.ReplyBucket + "." + hex64,
	}

	api := []string{"$JS.API.INFO", "$JS.API.STREAM.INFO." + stream, "$JS.API.STREAM.MSG.GET." + stream}
	var acks []probe
	for _, s := range contracts.RequestSubjects {
		c := messaging.ConsumerName(s)
		api = append(api, "$JS.API.CONSUMER.INFO."+stream+"."+c, "$JS.API.CONSUMER.MSG.NEXT."+stream+"."+c)
		acks = append(acks, probe{subject: "$JS.ACK." + stream + "." + c + ".1.1.1.1.0", body: ackProbeBody})
	}
	for _, bucket := range []string{workspace.DefaultMetaBucket, historyimage.DefaultKVBucket, contracts.ReplyBucket} {
		api = append(api, "$JS.API.STREAM.INFO.KV_"+bucket, "$JS.API.DIRECT.GET.KV_"+bucket+"."+kvKeys[bucket])
	}
	for _, bucket := range []string{claims, blobs} {
		meta := "$O." + bucket + ".M." + objName("claim_"+hex64[:32])
		api = append(api, "$JS.API.STREAM.INFO.OBJ_"+bucket, "$JS.API.DIRECT.GET.OBJ_"+bucket+"."+meta,
			"$JS.API.CONSUMER.CREATE.OBJ_"+bucket+"."+id+".$O."+bucket+".C."+id,
			"$JS.API.CONSUMER.DELETE.OBJ_"+bucket+"."+id)
	}
	var apiProbes []probe
	for _, s := range api {
		apiProbes = append(apiProbes, probe{subject: s, body: apiProbeBody})
	}
	for _, bucket := range []string{claims, blobs} {
		// A purge of a chunk subject nobody wrote (valid on every server version: nothing is purged).
		apiProbes = append(apiProbes, probe{subject: "$JS.API.STREAM.PURGE.OBJ_" + bucket, body: []byte(`{"filter":"$O.` + bucket + `.C.` + id + `"}`)})
	}
	objProbes := func(bucket string) []probe {
		return plain("$O."+bucket+".C."+id, "$O."+bucket+".M."+objName("claim_"+hex64[:32]))
	}
	perms := []Permission{
		pub("$JS.API.>", apiProbes...),
		pub("$JS.ACK."+stream+".>", acks...),
		pub("$JS.FC.>", plain("$JS.FC.OBJ_"+claims+"."+id+".1", "$JS.FC.OBJ_"+blobs+"."+id+".1")...),
		pub("$KV."+workspace.DefaultMetaBucket+".>", plain(kvKeys[workspace.DefaultMetaBucket])...),
		pub("$KV."+historyimage.DefaultKVBucket+".>", plain(kvKeys[historyimage.DefaultKVBucket])...),
		pub("$KV."+contracts.ReplyBucket+".>", plain(kvKeys[contracts.ReplyBucket])...),
		pub("$O."+claims+".>", objProbes(claims)...),
		pub("$O."+blobs+".>", objProbes(blobs)...),
	}
	var deadLetters, endpoints []probe
	for _, s := range contracts.RequestSubjects {
		deadLetters = append(deadLetters, probe{subject: contracts.DeadLetterPrefix + s})
		endpoints = append(endpoints, probe{subject: contracts.RequestReplySubject(s), queue: contracts.ServiceName})
	}
	perms = append(perms, pub(contracts.DeadLetterPrefix+">", deadLetters...))
	for _, s := range contracts.RequestSubjects {
		perms = append(perms, pub(s, probe{subject: s}))
	}
	var srv []string
	for _, verb := range []string{"PING", "INFO", "STATS"} {
		srv = append(srv, "$SRV."+verb, "$SRV."+verb+"."+contracts.ServiceName, "$SRV."+verb+"."+contracts.ServiceName+"."+id)
	}
	return append(perms,
		// Replies go to callers' inboxes, "_INBOX.<nuid>.<token>"; the worker's own JetStream
		// requests wait on "_INBOX.<nuid>.*" (nats.go's one reply subscription).
		pub("_INBOX.>", plain("_INBOX."+id+"."+id)...),
		sub("_INBOX.>", plain("_INBOX."+id+".*")...),
		sub("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+stream+".*", plain("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+stream+".*")...),
		sub(contracts.RequestReplyPrefix+">", endpoints...),
		sub("$SRV.>", plain(srv...)...),
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
		for _, pr := range p.probes {
			refused, err := refuses(ctx, nc, p.Publish, pr)
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
func refuses(ctx context.Context, nc *nats.Conn, publish bool, pr probe) (bool, error) {
	var what string
	subject := pr.subject
	if publish {
		what = "Publish to \"" + subject + "\""
		msg := &nats.Msg{Subject: subject, Reply: nc.NewInbox(), Header: nats.Header{}, Data: pr.body}
		msg.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(math.MaxUint64, 10))
		if err := nc.PublishMsg(msg); err != nil {
			return false, err
		}
	} else {
		what = "Subscription to \"" + subject + "\""
		sub, err := nc.QueueSubscribeSync(subject, pr.queue)
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

// TenantPermissions are the permissions the worker's user needs besides WorkerPermissions for the
// tenants of a shared pool (TENANTS): each tenant's buckets (WORKSPACE_FILES_<t>, HISTORY_IMAGES_<t>,
// HISTORY_IMAGES_BLOBS_<t>, WORKER_CLAIMS_<t>), its request subjects (the plain front stores requests
// there) and its plain-path endpoints, each proven by the subjects the worker uses under it.
func TenantPermissions(tenants []string) []Permission {
	hex64 := strings.Repeat("0123456789abcdef", 4)
	id := nats.NewInbox()[len("_INBOX."):]
	objName := base64.URLEncoding.EncodeToString([]byte("claim_" + hex64[:32]))
	var perms []Permission
	for _, t := range tenants {
		b := bucketsOf(t)
		perms = append(perms,
			Permission{Publish: true, Subject: "$KV." + b.files + ".>", probes: []probe{{subject: "$KV." + b.files + ".permission-probe." + hex64}}},
			Permission{Publish: true, Subject: "$KV." + b.historyKV + ".>", probes: []probe{{subject: "$KV." + b.historyKV + ".history_image_" + hex64[:32]}}},
		)
		flow := Permission{Publish: true, Subject: "$JS.FC.>"}
		for _, bucket := range []string{b.claims, b.historyObjects} {
			perms = append(perms, Permission{Publish: true, Subject: "$O." + bucket + ".>", probes: []probe{{subject: "$O." + bucket + ".C." + id}, {subject: "$O." + bucket + ".M." + objName}}})
			flow.probes = append(flow.probes, probe{subject: "$JS.FC.OBJ_" + bucket + "." + id + ".1"})
		}
		perms = append(perms, flow,
			// Replies to the tenant's callers, "_INBOX.<tenant>.<nuid>.<token>".
			Permission{Publish: true, Subject: contracts.TenantInbox(t) + ".>", probes: []probe{{subject: contracts.TenantInbox(t) + "." + id + "." + id}}})
		for _, s := range contracts.RequestSubjects {
			ts := contracts.TenantSubject(t, s)
			perms = append(perms,
				Permission{Publish: true, Subject: ts, probes: []probe{{subject: ts}}},
				Permission{Subject: contracts.RequestReplySubject(ts), probes: []probe{{subject: contracts.RequestReplySubject(ts), queue: contracts.ServiceName}}},
			)
		}
	}
	return perms
}
