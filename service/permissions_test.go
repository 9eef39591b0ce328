package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/workspace"
)

// Proving the permissions stores nothing (every stream and bucket it touches stays empty), passes
// for a user with every permission, and names exactly the permission a user lacks.
func TestProvePermissionsStoresNothingAndNamesWhatIsMissing(t *testing.T) {
	var allow []string
	for _, p := range WorkerPermissions() {
		if p.Publish && p.Subject != "$KV."+workspace.DefaultMetaBucket+".>" {
			allow = append(allow, p.Subject)
		}
	}
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
		Users: []*server.User{
			{Username: "worker", Password: "w"},
			{Username: "lacking", Password: "l", Permissions: &server.Permissions{Publish: &server.SubjectPermission{Allow: allow}}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	t.Cleanup(s.Shutdown)
	connect := func(user, pass string) *nats.Conn {
		nc, err := nats.Connect(s.ClientURL(), nats.UserInfo(user, pass), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	ctx := context.Background()
	worker := connect("worker", "w")
	js, _ := jetstream.New(worker)
	if _, err := messaging.EnsureTopology(ctx, js, messaging.Topology{}); err != nil {
		t.Fatal(err)
	}
	if _, err := workspace.NewMetaStore(ctx, js, workspace.MetaConfig{}); err != nil {
		t.Fatal(err)
	}

	if _, err := messaging.EnsureReplies(ctx, js, messaging.ReplyConfig{}); err != nil {
		t.Fatal(err)
	}
	claims, err := claimcheck.Ensure(ctx, js, time.Hour, worker.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	// A request waiting and a claim stored: the probes (a pull, a purge) must leave both alone.
	if _, err := js.Publish(ctx, contracts.SubjectMetadata, []byte(`{"request_id":"waiting"}`)); err != nil {
		t.Fatal(err)
	}
	claim, err := claims.Prepare(ctx, "x", nil, make([]byte, 2<<20))
	if err != nil {
		t.Fatal(err)
	}

	if err := provePermissions(ctx, worker, WorkerPermissions()); err != nil {
		t.Fatalf("a user with every permission: %v", err)
	}
	for name, want := range map[string]uint64{messaging.DefaultStream: 1, messaging.DefaultDeadLetterStream: 0, "KV_" + workspace.DefaultMetaBucket: 0,
		"KV_" + contracts.ReplyBucket: 0} {
		st, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if n := st.CachedInfo().State.Msgs; n != want {
			t.Errorf("stream %s holds %d messages after the probes, want %d", name, n, want)
		}
	}
	cons, err := js.Consumer(ctx, messaging.DefaultStream, messaging.ConsumerName(contracts.SubjectMetadata))
	if err != nil {
		t.Fatal(err)
	}
	if info := cons.CachedInfo(); info.NumPending != 1 || info.NumAckPending != 0 || info.Delivered.Consumer != 0 {
		t.Errorf("the waiting request after the probes: %d pending, %d delivered, %d awaiting an ack; want it untouched", info.NumPending, info.Delivered.Consumer, info.NumAckPending)
	}
	if _, err := claims.Resolve(ctx, claim.Header, nil); err != nil {
		t.Errorf("the stored claim after the probes: %v", err)
	}

	err = provePermissions(ctx, connect("lacking", "l"), WorkerPermissions())
	var se *SettingError
	if !errors.As(err, &se) || se.Settings != "NATS_CREDS" || !errors.Is(err, nats.ErrPermissionViolation) {
		t.Fatalf("a user without one permission: %v, want a SettingError naming NATS_CREDS", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `publish "$KV.WORKSPACE_FILES.>"`) || strings.Count(msg, `publish "`)+strings.Count(msg, `subscribe "`) != 1 {
		t.Fatalf("a user without one permission: %q, want it and only it named", msg)
	}
}

// A grant narrowed below what the worker uses is refused as a missing one is: the start-up check
// tries the subjects the worker really uses (its streams, consumers and buckets by name, object
// chunks and metadata, KV keys, inboxes, the micro service's subjects), and names the permission.
func TestProvePermissionsRefusesNarrowedGrants(t *testing.T) {
	for _, tt := range []struct {
		name string
		// narrowed replaces the documented grant want (a publish one unless sub) by these subjects.
		want     string
		sub      bool
		narrowed []string
	}{
		{"claim chunks only", "$O.WORKER_CLAIMS.>", false, []string{"$O.WORKER_CLAIMS.C.>"}},
		{"claim metadata only", "$O.WORKER_CLAIMS.>", false, []string{"$O.WORKER_CLAIMS.M.>"}},
		{"history blobs chunks only", "$O.HISTORY_IMAGES_BLOBS.>", false, []string{"$O.HISTORY_IMAGES_BLOBS.C.>"}},
		{"stream API only", "$JS.API.>", false, []string{"$JS.API.INFO", "$JS.API.STREAM.>"}},
		{"no direct gets", "$JS.API.>", false, []string{"$JS.API.INFO", "$JS.API.STREAM.>", "$JS.API.CONSUMER.>"}},
		{"no pulls", "$JS.API.>", false, []string{"$JS.API.INFO", "$JS.API.STREAM.>", "$JS.API.DIRECT.>", "$JS.API.CONSUMER.INFO.>", "$JS.API.CONSUMER.CREATE.>", "$JS.API.CONSUMER.DELETE.>"}},
		{"claims API only", "$JS.API.>", false, []string{"$JS.API.INFO", "$JS.API.STREAM.>", "$JS.API.DIRECT.GET.OBJ_WORKER_CLAIMS.>", "$JS.API.CONSUMER.>"}},
		{"acks of one consumer", "$JS.ACK.WORKER_REQUESTS.>", false, []string{"$JS.ACK.WORKER_REQUESTS.worker_tool_get_artifact.>"}},
		{"one dead-letter subject", "deadletter.>", false, []string{"deadletter.tool.get_artifact"}},
		{"workspace keys of one token", "$KV.WORKSPACE_FILES.>", false, []string{"$KV.WORKSPACE_FILES.*"}},
		{"reply keys under a prefix", "$KV.WORKER_REPLIES.>", false, []string{"$KV.WORKER_REPLIES.r.>"}},
		{"inbox replies of one token", "_INBOX.>", false, []string{"_INBOX.*"}},
		{"inbox subscriptions of one token", "_INBOX.>", true, []string{"_INBOX.*"}},
		{"service pings only", "$SRV.>", true, []string{"$SRV.PING", "$SRV.PING.>"}},
		{"endpoints in another queue group", "artifact-worker.>", true, []string{"artifact-worker.> other-group"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var pub, sub []string
			for _, p := range WorkerPermissions() {
				switch {
				case p.Subject == tt.want && p.Publish != tt.sub:
					if tt.sub {
						sub = append(sub, tt.narrowed...)
					} else {
						pub = append(pub, tt.narrowed...)
					}
				case p.Publish:
					pub = append(pub, p.Subject)
				default:
					sub = append(sub, p.Subject)
				}
			}
			s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
				Users: []*server.User{{Username: "narrowed", Password: "n", Permissions: &server.Permissions{
					Publish: &server.SubjectPermission{Allow: pub}, Subscribe: &server.SubjectPermission{Allow: sub}}}}})
			if err != nil {
				t.Fatal(err)
			}
			go s.Start()
			if !s.ReadyForConnections(10 * time.Second) {
				t.Fatal("nats-server not ready")
			}
			t.Cleanup(s.Shutdown)
			nc, err := nats.Connect(s.ClientURL(), nats.UserInfo("narrowed", "n"), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(nc.Close)
			err = provePermissions(context.Background(), nc, WorkerPermissions())
			kind := map[bool]string{false: "publish", true: "subscribe"}[tt.sub]
			named := fmt.Sprintf("%s %q", kind, tt.want)
			var se *SettingError
			if !errors.As(err, &se) || se.Settings != "NATS_CREDS" || !strings.Contains(err.Error(), named) {
				t.Fatalf("narrowed to %v: %v, want a SettingError naming NATS_CREDS and %s", tt.narrowed, err, named)
			}
			if n := strings.Count(err.Error(), `publish "`) + strings.Count(err.Error(), `subscribe "`); n != 1 {
				t.Errorf("narrowed to %v: %v, want only %s named", tt.narrowed, err, named)
			}
		})
	}
}
