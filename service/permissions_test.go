package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

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

	if err := provePermissions(ctx, worker, WorkerPermissions()); err != nil {
		t.Fatalf("a user with every permission: %v", err)
	}
	for _, name := range []string{messaging.DefaultStream, messaging.DefaultDeadLetterStream, "KV_" + workspace.DefaultMetaBucket} {
		st, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if n := st.CachedInfo().State.Msgs; n != 0 {
			t.Errorf("stream %s holds %d messages after the probes, want 0", name, n)
		}
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
