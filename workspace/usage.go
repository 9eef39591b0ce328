package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// recordAllowance is what Reserve counts for the metadata a write adds (a new record is about
// 400 bytes as stored, one more modification about 150): the watched usage has the exact figure
// once the record is written.
const recordAllowance = 512

// storedOverhead is what JetStream's file store adds to each message besides its subject and
// value (a 22-byte header and an 8-byte hash), so that the usage of the metadata matches the
// bucket's stream bytes.
const storedOverhead = 30

// usage is the bytes a tenant's workspace holds: for every file, the content the worker stored for
// its latest write (the record's "size") plus its metadata record as JetStream stores it. It is
// derived from the bucket itself: a watcher replays every record at start and follows every change,
// from any replica, so a restart forgets nothing. Writes this replica has started but not yet
// recorded are held as pending.
type usage struct {
	limit   int64
	subject string // "$KV.{bucket}.": the prefix of the records' subjects
	ready   chan struct{}

	mu      sync.Mutex
	files   map[string]fileUsage
	total   int64
	pending int64
}

type fileUsage struct{ content, stored int64 }

// watchUsage starts following kv; it runs until the connection closes.
func watchUsage(ctx context.Context, kv jetstream.KeyValue, bucket string, limit int64) (*usage, error) {
	u := &usage{limit: limit, subject: "$KV." + bucket + ".", ready: make(chan struct{}), files: map[string]fileUsage{}}
	w, err := kv.WatchAll(context.WithoutCancel(ctx))
	if err != nil {
		return nil, fmt.Errorf("workspace: watch metadata bucket %s: %w", bucket, err)
	}
	go func() {
		initial := true
		for e := range w.Updates() {
			if e == nil {
				if initial {
					close(u.ready)
					initial = false
				}
				continue
			}
			u.apply(e)
		}
	}()
	return u, nil
}

// apply accounts one record as it now is.
func (u *usage) apply(e jetstream.KeyValueEntry) {
	var f fileUsage
	if e.Operation() == jetstream.KeyValuePut {
		var rec struct {
			Size int64 `json:"size"`
		}
		_ = json.Unmarshal(e.Value(), &rec) // a corrupt record holds no content size
		f = fileUsage{content: max(rec.Size, 0), stored: int64(storedOverhead + len(u.subject) + len(e.Key()) + len(e.Value()))}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.total += f.content + f.stored - u.files[e.Key()].content - u.files[e.Key()].stored
	if e.Operation() == jetstream.KeyValuePut {
		u.files[e.Key()] = f
	} else {
		delete(u.files, e.Key())
	}
}

// reserve holds n bytes of content for a write of key, or refuses with ErrOverLimit when the
// workspace would then hold more than the limit. The content key holds now is not counted twice:
// the write replaces it.
func (u *usage) reserve(ctx context.Context, key string, n int64) (release func(), err error) {
	select {
	case <-u.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("workspace: usage of the bucket not yet read: %w", ctx.Err())
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	held := n + recordAllowance
	after := u.total + u.pending + held - u.files[key].content
	if after > u.limit {
		return nil, fmt.Errorf("%w: %d bytes of content would bring it to %d bytes, over its limit of %d", ErrOverLimit, n, after, u.limit)
	}
	u.pending += held
	var once sync.Once
	return func() {
		once.Do(func() {
			u.mu.Lock()
			u.pending -= held
			u.mu.Unlock()
		})
	}, nil
}

// Used returns the bytes the workspace holds by the records read so far (content plus metadata)
// and the limit; limit is 0 when the store has none.
func (s *MetaStore) Used() (used, limit int64) {
	if s.usage == nil {
		return 0, 0
	}
	s.usage.mu.Lock()
	defer s.usage.mu.Unlock()
	return s.usage.total, s.usage.limit
}

// Reserve checks, before any content is stored, that a write of n bytes of content to the file
// fits in the store's limit (MetaConfig.MaxBytes): the content the worker stored for every file's
// latest write, plus the metadata records, plus the writes this replica has reserved and not yet
// released. It returns ErrOverLimit when it does not fit (nothing is held then), else a release
// func to call once the write is recorded or has failed (calling it twice is harmless). Without a
// limit it always succeeds.
//
// Replicas account each other's writes once they are recorded, so concurrent writes of one tenant
// on several replicas can exceed the limit by at most what those replicas have in flight.
func (s *MetaStore) Reserve(ctx context.Context, workspaceID, cleanPath string, n int64) (release func(), err error) {
	if s.usage == nil {
		return func() {}, nil
	}
	p, err := checkFile(workspaceID, cleanPath)
	if err != nil {
		return nil, err
	}
	return s.usage.reserve(ctx, metaKey(workspaceID, p), n)
}
