package workspace

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

// newStore opens a MetaStore over a connection.
func newStore(t *testing.T, nc *nats.Conn, cfg MetaConfig) *MetaStore {
	t.Helper()
	return openStore(t, testContext(t), nc, cfg)
}

func newStoreB(b *testing.B, nc *nats.Conn) *MetaStore {
	b.Helper()
	return openStore(b, b.Context(), nc, MetaConfig{})
}

func openStore(t testing.TB, ctx context.Context, nc *nats.Conn, cfg MetaConfig) *MetaStore {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewMetaStore(ctx, js, cfg)
	if err != nil {
		t.Fatalf("NewMetaStore: %v", err)
	}
	return s
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func mod(agent string, i int) contracts.Modification {
	return contracts.Modification{
		AgentID:   agent,
		MessageID: fmt.Sprintf("msg-%03d", i),
		Timestamp: t0.Add(time.Duration(i) * time.Millisecond),
	}
}

func messageIDs(mods []contracts.Modification) []string {
	ids := make([]string, len(mods))
	for i, m := range mods {
		ids[i] = m.MessageID
	}
	return ids
}

func equalMeta(a, b FileMeta) bool {
	return a.MimeType == b.MimeType && a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt) &&
		equalMods(a.ModifiedBy, b.ModifiedBy)
}

func TestMetaConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		cfg    MetaConfig
		fields []string // names expected in the error; none means valid
	}{
		{"zero value", MetaConfig{}, nil},
		{"explicit", MetaConfig{Bucket: "ws-files_2", MaxModifiedBy: 5, MaxAttempts: 3, Replicas: 3}, nil},
		{"bucket with dot", MetaConfig{Bucket: "a.b"}, []string{"Bucket"}},
		{"bucket with space", MetaConfig{Bucket: "a b"}, []string{"Bucket"}},
		{"negative max modified by", MetaConfig{MaxModifiedBy: -1}, []string{"MaxModifiedBy"}},
		{"negative attempts", MetaConfig{MaxAttempts: -1}, []string{"MaxAttempts"}},
		{"too many replicas", MetaConfig{Replicas: 6}, []string{"Replicas"}},
		{"every field at once", MetaConfig{Bucket: "a*", MaxModifiedBy: -2, MaxAttempts: -3, Replicas: -1},
			[]string{"Bucket", "MaxModifiedBy", "MaxAttempts", "Replicas"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.fields) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate accepted an invalid config")
			}
			for _, f := range tt.fields {
				if !strings.Contains(err.Error(), "MetaConfig."+f+" ") {
					t.Errorf("error %q does not name %s", err, f)
				}
			}
		})
	}
}

func TestMetaConfigDefaults(t *testing.T) {
	var c MetaConfig
	c.setDefaults()
	want := MetaConfig{Bucket: "WORKSPACE_FILES", MaxModifiedBy: 100, MaxAttempts: 50, Replicas: 1}
	if c != want {
		t.Fatalf("defaults %+v, want %+v", c, want)
	}
	c = MetaConfig{Bucket: "X", MaxModifiedBy: 7, MaxAttempts: 2, Replicas: 3}
	c.setDefaults()
	if c != (MetaConfig{Bucket: "X", MaxModifiedBy: 7, MaxAttempts: 2, Replicas: 3}) {
		t.Fatalf("setDefaults overrode set fields: %+v", c)
	}
}

func TestNewMetaStoreBucket(t *testing.T) {
	s := natstest.Start(t)
	nc := natstest.Connect(t, s)
	newStore(t, nc, MetaConfig{})
	js, _ := jetstream.New(nc)
	stream, err := js.Stream(testContext(t), "KV_WORKSPACE_FILES")
	if err != nil {
		t.Fatalf("bucket stream: %v", err)
	}
	cfg := stream.CachedInfo().Config
	if cfg.MaxMsgsPerSubject != 1 || cfg.Storage != jetstream.FileStorage || cfg.MaxAge != 0 {
		t.Fatalf("bucket: history %d, storage %v, TTL %v; want 1, file, none", cfg.MaxMsgsPerSubject, cfg.Storage, cfg.MaxAge)
	}
	if _, err := NewMetaStore(testContext(t), js, MetaConfig{MaxModifiedBy: -1}); err == nil {
		t.Fatal("NewMetaStore accepted an invalid config")
	}
}

// Replicas starting together all get the bucket.
func TestNewMetaStoreConcurrent(t *testing.T) {
	s := natstest.Start(t)
	conns := []*nats.Conn{natstest.Connect(t, s), natstest.Connect(t, s)}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			js, err := jetstream.New(conns[i%2])
			if err == nil {
				_, err = NewMetaStore(testContext(t), js, MetaConfig{})
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("NewMetaStore: %v", err)
		}
	}
}

func TestMetaStoreRecordWrite(t *testing.T) {
	s := natstest.Start(t)
	store := newStore(t, natstest.Connect(t, s), MetaConfig{})
	ctx := testContext(t)

	if _, err := store.Get(ctx, "ws1", "docs/a.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get before any write: %v, want ErrNotFound", err)
	}
	first, err := store.RecordWrite(ctx, "ws1", "docs/a.txt", "text/plain", mod("agent-a", 1))
	if err != nil {
		t.Fatalf("first RecordWrite: %v", err)
	}
	want := FileMeta{MimeType: "text/plain", CreatedAt: mod("", 1).Timestamp, UpdatedAt: mod("", 1).Timestamp,
		ModifiedBy: []contracts.Modification{mod("agent-a", 1)}}
	if !equalMeta(first, want) {
		t.Fatalf("first write: %+v, want %+v", first, want)
	}

	// The same file under an unclean spelling; a later write wins the MIME type.
	second, err := store.RecordWrite(ctx, "ws1", `docs\.\a.txt`, "text/markdown", mod("agent-b", 5))
	if err != nil {
		t.Fatalf("second RecordWrite: %v", err)
	}
	want = FileMeta{MimeType: "text/markdown", CreatedAt: mod("", 1).Timestamp, UpdatedAt: mod("", 5).Timestamp,
		ModifiedBy: []contracts.Modification{mod("agent-a", 1), mod("agent-b", 5)}}
	if !equalMeta(second, want) {
		t.Fatalf("second write: %+v, want %+v", second, want)
	}

	// A late event with an older timestamp is recorded in its place but moves nothing back.
	late, err := store.RecordWrite(ctx, "ws1", "docs/a.txt", "image/png", mod("agent-c", 3))
	if err != nil {
		t.Fatalf("late RecordWrite: %v", err)
	}
	want = FileMeta{MimeType: "text/markdown", CreatedAt: mod("", 1).Timestamp, UpdatedAt: mod("", 5).Timestamp,
		ModifiedBy: []contracts.Modification{mod("agent-a", 1), mod("agent-c", 3), mod("agent-b", 5)}}
	if !equalMeta(late, want) {
		t.Fatalf("late write: %+v, want %+v", late, want)
	}
	got, err := store.Get(ctx, "ws1", "docs/a.txt")
	if err != nil || !equalMeta(got, want) {
		t.Fatalf("Get: %+v, %v; want %+v", got, err, want)
	}

	// Other files and workspaces are separate.
	for _, f := range []struct{ ws, path string }{{"ws2", "docs/a.txt"}, {"ws1", "docs/b.txt"}} {
		if _, err := store.Get(ctx, f.ws, f.path); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%s, %s): %v, want ErrNotFound", f.ws, f.path, err)
		}
	}
}

func TestMetaStoreKeys(t *testing.T) {
	s := natstest.Start(t)
	store := newStore(t, natstest.Connect(t, s), MetaConfig{})
	ctx := testContext(t)
	long, err := CleanPath(strings.Repeat("长/", MaxPathLen/4-1) + "x")
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"报告 v2.md", "a b/c d.txt", ".env", "a.b/c..d", "x=y/*>/%20", long}
	ws := strings.Repeat("w", MaxWorkspaceIDLen)
	for _, p := range paths {
		t.Run(p[:min(len(p), 20)], func(t *testing.T) {
			if _, err := store.RecordWrite(ctx, ws, p, "text/plain", mod("a", 1)); err != nil {
				t.Fatalf("RecordWrite(%q): %v", p, err)
			}
			got, err := store.Get(ctx, ws, p)
			if err != nil || len(got.ModifiedBy) != 1 {
				t.Fatalf("Get(%q) = %+v, %v; want its single write", p, got, err)
			}
		})
	}
}

func TestMetaStoreRejects(t *testing.T) {
	s := natstest.Start(t)
	store := newStore(t, natstest.Connect(t, s), MetaConfig{})
	ctx := testContext(t)
	tests := []struct {
		name, ws, path, mime string
		want                 error
	}{
		{"bad workspace", "a.b", "x", "text/plain", ErrInvalidWorkspaceID},
		{"traversal", "a", "../b/secret", "text/plain", ErrPathTraversal},
		{"absolute", "a", "/etc/passwd", "text/plain", ErrPathTraversal},
		{"empty path", "a", "", "text/plain", ErrInvalidPath},
		{"control", "a", "x\x00", "text/plain", ErrInvalidPath},
		{"missing mime", "a", "x", "", ErrMissingMimeType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := store.RecordWrite(ctx, tt.ws, tt.path, tt.mime, mod("a", 1)); !errors.Is(err, tt.want) {
				t.Fatalf("RecordWrite: %v, want %v", err, tt.want)
			}
			if tt.want == ErrMissingMimeType {
				return
			}
			if _, err := store.Get(ctx, tt.ws, tt.path); !errors.Is(err, tt.want) {
				t.Fatalf("Get: %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("canceled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := store.RecordWrite(ctx, "a", "x", "text/plain", mod("a", 1)); !errors.Is(err, context.Canceled) {
			t.Fatalf("RecordWrite: %v, want context.Canceled", err)
		}
	})
}

func TestMetaStoreCorruptRecord(t *testing.T) {
	s := natstest.Start(t)
	store := newStore(t, natstest.Connect(t, s), MetaConfig{})
	ctx := testContext(t)
	if _, err := store.kv.Put(ctx, metaKey("ws1", "a.txt"), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Get(ctx, "ws1", "a.txt"); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a corrupt record: %v, want a decode error", err)
	}
	if _, err := store.RecordWrite(ctx, "ws1", "a.txt", "text/plain", mod("a", 1)); err == nil {
		t.Fatal("RecordWrite overwrote a corrupt record")
	}
}

func TestMetaStoreTrim(t *testing.T) {
	s := natstest.Start(t)
	store := newStore(t, natstest.Connect(t, s), MetaConfig{MaxModifiedBy: 3})
	ctx := testContext(t)
	var got FileMeta
	var err error
	for i := 1; i <= 5; i++ {
		if got, err = store.RecordWrite(ctx, "ws1", "a.txt", "text/plain", mod("a", i)); err != nil {
			t.Fatal(err)
		}
	}
	if ids := messageIDs(got.ModifiedBy); !slices.Equal(ids, []string{"msg-003", "msg-004", "msg-005"}) {
		t.Fatalf("kept %v, want the 3 most recent", ids)
	}
	if !got.CreatedAt.Equal(mod("", 1).Timestamp) || !got.UpdatedAt.Equal(mod("", 5).Timestamp) {
		t.Fatalf("CreatedAt %v, UpdatedAt %v; want the first and last write", got.CreatedAt, got.UpdatedAt)
	}
	// An event older than everything kept is dropped by the trim, and moves nothing.
	if got, err = store.RecordWrite(ctx, "ws1", "a.txt", "image/png", mod("a", 0)); err != nil {
		t.Fatal(err)
	}
	if ids := messageIDs(got.ModifiedBy); !slices.Equal(ids, []string{"msg-003", "msg-004", "msg-005"}) || got.MimeType != "text/plain" {
		t.Fatalf("after an old event: %v %q, want unchanged", ids, got.MimeType)
	}
}

// Writes interleaved between read and compare-and-set are retried, not lost; a writer that loses
// every attempt gives up with ErrConflict.
func TestMetaStoreConflicts(t *testing.T) {
	s := natstest.Start(t)
	nc := natstest.Connect(t, s)
	other := newStore(t, nc, MetaConfig{})
	ctx := testContext(t)
	if _, err := other.RecordWrite(ctx, "ws1", "a.txt", "text/plain", mod("other", 0)); err != nil {
		t.Fatal(err)
	}

	t.Run("retried", func(t *testing.T) {
		store := newStore(t, nc, MetaConfig{MaxAttempts: 3})
		calls := 0
		store.testHookBeforeCAS = func() {
			calls++
			if calls <= 2 { // the other replica wins the first two races
				if _, err := other.RecordWrite(ctx, "ws1", "a.txt", "text/plain", mod("other", calls)); err != nil {
					t.Error(err)
				}
			}
		}
		got, err := store.RecordWrite(ctx, "ws1", "a.txt", "text/plain", mod("me", 10))
		if err != nil {
			t.Fatalf("RecordWrite: %v", err)
		}
		if calls != 3 {
			t.Fatalf("%d attempts, want 3", calls)
		}
		if ids := messageIDs(got.ModifiedBy); !slices.Equal(ids, []string{"msg-000", "msg-001", "msg-002", "msg-010"}) {
			t.Fatalf("recorded %v, want every write", ids)
		}
	})
	t.Run("gives up", func(t *testing.T) {
		store := newStore(t, nc, MetaConfig{MaxAttempts: 3})
		calls := 0
		store.testHookBeforeCAS = func() {
			calls++
			if _, err := other.RecordWrite(ctx, "ws1", "a.txt", "text/plain", mod("other", 20+calls)); err != nil {
				t.Error(err)
			}
		}
		if _, err := store.RecordWrite(ctx, "ws1", "a.txt", "text/plain", mod("me", 30)); !errors.Is(err, ErrConflict) {
			t.Fatalf("RecordWrite: %v, want ErrConflict", err)
		}
		if calls != 3 {
			t.Fatalf("%d attempts, want 3", calls)
		}
		got, err := other.Get(ctx, "ws1", "a.txt")
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(messageIDs(got.ModifiedBy), "msg-030") {
			t.Fatal("a write that gave up was recorded")
		}
	})
}

// 100 writes of one file at once through two connections (two worker replicas) are all recorded.
func TestMetaStoreConcurrentWriters(t *testing.T) {
	const writes = 100
	s := natstest.Start(t)
	cfg := MetaConfig{MaxModifiedBy: writes}
	stores := make([]*MetaStore, 2)
	var wg sync.WaitGroup
	for i := range stores {
		nc := natstest.Connect(t, s)
		wg.Go(func() { stores[i] = newStore(t, nc, cfg) }) // both replicas create the bucket at once
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	ctx := testContext(t)
	var casAttempts atomic.Int64
	for _, store := range stores {
		store.testHookBeforeCAS = func() { casAttempts.Add(1) }
	}

	start := make(chan struct{})
	results := make([]FileMeta, writes)
	errs := make([]error, writes)
	for i := range writes {
		wg.Go(func() {
			<-start
			mime := []string{"text/plain", "text/markdown"}[i%2]
			results[i], errs[i] = stores[i%2].RecordWrite(ctx, "ws1", "notes/todo.md", mime, mod(fmt.Sprintf("agent-%d", i%2), i))
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	// 99 updates without contention; every attempt beyond that lost a race and was retried.
	t.Logf("%d compare-and-set attempts for %d updates", casAttempts.Load(), writes-1)

	for n, store := range stores {
		got, err := store.Get(ctx, "ws1", "notes/todo.md")
		if err != nil {
			t.Fatalf("replica %d: Get: %v", n, err)
		}
		if len(got.ModifiedBy) != writes {
			t.Fatalf("replica %d: %d modifications, want %d", n, len(got.ModifiedBy), writes)
		}
		ids := messageIDs(got.ModifiedBy)
		want := make([]string, writes)
		for i := range want {
			want[i] = mod("", i).MessageID
		}
		// Timestamps are distinct, so timestamp order is message order.
		if !slices.Equal(ids, want) {
			t.Fatalf("replica %d: modifications %v, want each write once in timestamp order", n, ids)
		}
		if latest := mod("", writes-1).Timestamp; !got.UpdatedAt.Equal(latest) {
			t.Fatalf("replica %d: UpdatedAt %v, want the latest timestamp %v", n, got.UpdatedAt, latest)
		}
		if got.MimeType != "text/markdown" {
			t.Fatalf("replica %d: MimeType %q, want the latest write's text/markdown", n, got.MimeType)
		}

		// Exactly one write created the record; its CreatedAt is what everyone saw, and stays.
		creators := 0
		for i, r := range results {
			if len(r.ModifiedBy) == 1 {
				creators++
				if !got.CreatedAt.Equal(mod("", i).Timestamp) {
					t.Fatalf("replica %d: CreatedAt %v, want the creating write's %v", n, got.CreatedAt, mod("", i).Timestamp)
				}
			}
			if !r.CreatedAt.Equal(got.CreatedAt) {
				t.Fatalf("write %d saw CreatedAt %v, final is %v", i, r.CreatedAt, got.CreatedAt)
			}
		}
		if creators != 1 {
			t.Fatalf("%d writes created the record, want 1", creators)
		}
	}
}

// Metadata lives in file storage: it survives a server restart, and a store whose connection
// reconnects keeps working.
func TestMetaStoreSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s1 := natstest.Start(t, natstest.Options{StoreDir: dir})
	port := s1.Addr().(*net.TCPAddr).Port
	nc := natstest.Connect(t, s1, nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	store := newStore(t, nc, MetaConfig{})
	ctx := testContext(t)
	var before FileMeta
	var err error
	for i := range 2 {
		if before, err = store.RecordWrite(ctx, "ws1", "报告.md", "text/markdown", mod("a", i)); err != nil {
			t.Fatal(err)
		}
	}

	s1.Shutdown()
	s1.WaitForShutdown()
	s2 := natstest.Start(t, natstest.Options{StoreDir: dir, Port: port})

	fresh := newStore(t, natstest.Connect(t, s2), MetaConfig{})
	got, err := fresh.Get(ctx, "ws1", "报告.md")
	if err != nil || !equalMeta(got, before) {
		t.Fatalf("after restart: %+v, %v; want %+v", got, err, before)
	}

	// The old replica reconnects; poll until it can read again.
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err = store.Get(ctx, "ws1", "报告.md")
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || !equalMeta(got, before) {
		t.Fatalf("old replica after restart: %+v, %v; want %+v", got, err, before)
	}
	after, err := store.RecordWrite(ctx, "ws1", "报告.md", "text/markdown", mod("a", 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(after.ModifiedBy) != 3 || !after.CreatedAt.Equal(before.CreatedAt) {
		t.Fatalf("write after restart: %+v, want a third modification and the original CreatedAt", after)
	}
}
