package workspace

import (
	"cmp"

	"github.com/agentworks/artifact-worker/internal/backoff"
	"github.com/agentworks/artifact-worker/internal/jscreate"
	"github.com/agentworks/artifact-worker/internal/quorum"

	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
)

// Defaults of MetaConfig.
const (
	DefaultMetaBucket    = "WORKSPACE_FILES"
	DefaultMaxModifiedBy = 100
	DefaultMaxAttempts   = 50
)

// Bounds of the jittered back-off between two attempts of RecordWrite.
const (
	backoffBase = time.Millisecond
	backoffMax  = 500 * time.Millisecond
)

// FileMeta is the metadata of one workspace file.
type FileMeta struct {
	// MimeType is the MIME type given by the write with the latest timestamp (on equal timestamps, by
	// the last one recorded).
	MimeType string `json:"mimeType"`
	// CreatedAt is the timestamp of the write that created the record; it never changes afterwards.
	CreatedAt time.Time `json:"createdAt"`
	// UpdatedAt is the latest timestamp of all recorded writes.
	UpdatedAt time.Time `json:"updatedAt"`
	// ModifiedBy holds the most recent writes (at most MetaConfig.MaxModifiedBy), oldest first,
	// ordered by timestamp; writes with equal timestamps keep the order in which they were recorded.
	ModifiedBy []contracts.Modification `json:"modifiedBy"`
	// Size is the bytes of content the worker stored for the latest write (by the same order as
	// MimeType), 0 when that write carried none (the runtime stored the object itself). It is
	// what a store with a limit accounts for the file's content (see MetaStore.Reserve).
	Size int64 `json:"size,omitempty"`
}

// record is the stored value: FileMeta plus the key's origin, so that an operator reading the bucket
// (nats kv get) can tell which file a hashed key belongs to.
type record struct {
	WorkspaceID string `json:"workspaceId"`
	Path        string `json:"path"`
	FileMeta
}

// MetaConfig configures a MetaStore. The zero value is usable: every zero field gets its default.
type MetaConfig struct {
	// Bucket is the JetStream KV bucket holding the metadata. Default DefaultMetaBucket.
	Bucket string
	// MaxModifiedBy is how many modifications are kept per file: the most recent N, older ones are
	// dropped. Default DefaultMaxModifiedBy (100).
	MaxModifiedBy int
	// MaxAttempts bounds the compare-and-set attempts of one RecordWrite before it gives up with
	// ErrConflict. Default DefaultMaxAttempts (50).
	MaxAttempts int
	// Replicas of the bucket in a NATS cluster, 1..5. Default 1.
	Replicas int
	// MaxBytes limits the bytes of the workspace (a tenant's: TENANT_WORKSPACE_MAX_BYTES): the
	// content the worker stored plus the metadata, checked by Reserve before content is stored
	// (ErrOverLimit), and the bucket's own size (a metadata write over it is ErrFull). 0 or -1: no
	// limit.
	MaxBytes int64
}

func (c *MetaConfig) setDefaults() {
	c.Bucket = cmp.Or(c.Bucket, DefaultMetaBucket)
	c.MaxModifiedBy = cmp.Or(c.MaxModifiedBy, DefaultMaxModifiedBy)
	c.MaxAttempts = cmp.Or(c.MaxAttempts, DefaultMaxAttempts)
	c.Replicas = cmp.Or(c.Replicas, 1)
}

// validBucket is the alphabet of JetStream KV bucket names.
var validBucket = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// Validate reports every invalid field at once, by name. Zero fields are valid: they get defaults.
func (c MetaConfig) Validate() error {
	var errs []error
	if c.Bucket != "" && !validBucket.MatchString(c.Bucket) {
		errs = append(errs, fmt.Errorf("MetaConfig.Bucket %q: only A-Z, a-z, 0-9, '_' and '-' are allowed", c.Bucket))
	}
	if c.MaxModifiedBy < 0 {
		errs = append(errs, fmt.Errorf("MetaConfig.MaxModifiedBy %d: must not be negative", c.MaxModifiedBy))
	}
	if c.MaxAttempts < 0 {
		errs = append(errs, fmt.Errorf("MetaConfig.MaxAttempts %d: must not be negative", c.MaxAttempts))
	}
	if c.Replicas < 0 || c.Replicas > 5 {
		errs = append(errs, fmt.Errorf("MetaConfig.Replicas %d: must be 1..5", c.Replicas))
	}
	if len(errs) > 0 {
		return fmt.Errorf("workspace: invalid MetaConfig: %w", errors.Join(errs...))
	}
	return nil
}

// MetaStore keeps per-file metadata in a JetStream KV bucket and updates it with optimistic
// concurrency (compare-and-set on the key's revision), so that any number of workers can record
// writes of the same file at once without losing one. It is safe for concurrent use.
//
// Each file has one key, "{workspaceID}.{hex(sha256(cleanPath))}": the workspace alphabet and hex
// both fit the KV key alphabet [-/_=.a-zA-Z0-9], and the key is at most 193 bytes whatever the
// path. The value is the JSON of FileMeta plus "workspaceId" and "path".
type MetaStore struct {
	kv    jetstream.KeyValue
	cfg   MetaConfig
	usage *usage // nil without a limit

	// testHookBeforeCAS, when set by a test, runs between reading a record and writing it back.
	testHookBeforeCAS func()
}

// NewMetaStore creates the metadata bucket, or updates it to cfg when it exists, and returns a
// store over it. The bucket keeps one revision per key in file storage without TTL, so metadata
// survives server restarts. Creation is idempotent and safe when several workers start at once.
func NewMetaStore(ctx context.Context, js jetstream.JetStream, cfg MetaConfig) (*MetaStore, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	kvCfg := jetstream.KeyValueConfig{
		Bucket:      cfg.Bucket,
		Description: "artifact worker: metadata of workspace files",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		MaxBytes:    cmp.Or(cfg.MaxBytes, -1),
	}
	// Replicas starting together create it at once (internal/jscreate).
	kv, err := jscreate.Do(ctx, func(ctx context.Context) (jetstream.KeyValue, error) {
		return js.CreateOrUpdateKeyValue(ctx, kvCfg)
	})
	if err != nil {
		return nil, fmt.Errorf("workspace: metadata bucket %s: %w", cfg.Bucket, err)
	}
	s := &MetaStore{kv: kv, cfg: cfg}
	if cfg.MaxBytes > 0 {
		if s.usage, err = watchUsage(ctx, kv, cfg.Bucket, cfg.MaxBytes); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// metaKey returns the KV key of a file (see MetaStore).
func metaKey(workspaceID, cleanPath string) string {
	sum := sha256.Sum256([]byte(cleanPath))
	return workspaceID + "." + hex.EncodeToString(sum[:])
}

// checkFile validates the workspace ID and cleans the path (a no-op for a clean one), so that one
// file always has one key.
func checkFile(workspaceID, relPath string) (string, error) {
	if err := ValidateWorkspaceID(workspaceID); err != nil {
		return "", err
	}
	return CleanPath(relPath)
}

// RecordWrite records one write of a file and returns the file's metadata as stored.
//
// The first write creates the record with CreatedAt = mod.Timestamp. Every write appends mod to
// ModifiedBy (keeping timestamp order and the most recent MaxModifiedBy entries) and sets UpdatedAt
// to the later of its current value and mod.Timestamp; mimeType (required) replaces MimeType unless
// the write is older than UpdatedAt. So concurrent and out-of-order writes converge: the latest
// write wins, and none is lost. A zero mod.Timestamp means now; timestamps are stored in
// UTC.
//
// cleanPath is cleaned again (a no-op for a clean path). Errors: ErrInvalidWorkspaceID,
// ErrPathTraversal, ErrInvalidPath, ErrMissingMimeType for bad input; ErrConflict after MaxAttempts lost races (retry
// later); the context's error; otherwise a JetStream error (transient: unavailable or timed out)
// or a stored record that cannot be decoded (permanent).
//
// A write whose mod.RequestID is already among the ModifiedBy entries is not recorded again (a
// redelivered event); the current metadata is returned.
//
// RecordWrite records a write whose content the worker did not store (Size 0); RecordStored one
// whose content of size bytes it did.
func (s *MetaStore) RecordWrite(ctx context.Context, workspaceID, cleanPath, mimeType string, mod contracts.Modification) (FileMeta, error) {
	return s.RecordStored(ctx, workspaceID, cleanPath, mimeType, 0, mod)
}

// RecordStored is RecordWrite for a write whose content of size bytes the worker stored: the
// record's Size follows the latest write, like its MimeType.
func (s *MetaStore) RecordStored(ctx context.Context, workspaceID, cleanPath, mimeType string, size int64, mod contracts.Modification) (FileMeta, error) {
	p, err := checkFile(workspaceID, cleanPath)
	if err != nil {
		return FileMeta{}, err
	}
	if mimeType == "" {
		return FileMeta{}, fmt.Errorf("%w: %s in workspace %s", ErrMissingMimeType, quote(p), workspaceID)
	}
	if mod.Timestamp.IsZero() {
		mod.Timestamp = time.Now()
	}
	mod.Timestamp = mod.Timestamp.UTC().Round(0)
	key := metaKey(workspaceID, p)

	for attempt := 1; ; attempt++ {
		entry, err := s.kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			rec := record{WorkspaceID: workspaceID, Path: p, FileMeta: newMeta(mimeType, size, mod)}
			data, err := json.Marshal(rec)
			if err != nil {
				return FileMeta{}, fmt.Errorf("workspace: encode metadata of %s: %w", key, err)
			}
			_, err = s.kv.Create(ctx, key, data)
			if err == nil {
				return rec.FileMeta, nil
			}
			if !errors.Is(err, jetstream.ErrKeyExists) {
				return FileMeta{}, fmt.Errorf("workspace: create metadata of %s: %w", key, full(s.cfg.Bucket, err))
			}
		case err != nil:
			return FileMeta{}, fmt.Errorf("workspace: read metadata of %s: %w", key, err)
		default:
			var rec record
			if err := json.Unmarshal(entry.Value(), &rec); err != nil {
				return FileMeta{}, fmt.Errorf("workspace: stored metadata of %s is corrupt: %w", key, err)
			}
			rec.WorkspaceID, rec.Path = workspaceID, p
			if rec.FileMeta.Recorded(mod.RequestID) {
				return rec.FileMeta, nil
			}
			rec.FileMeta = apply(rec.FileMeta, mimeType, size, mod, s.cfg.MaxModifiedBy)
			data, err := json.Marshal(rec)
			if err != nil {
				return FileMeta{}, fmt.Errorf("workspace: encode metadata of %s: %w", key, err)
			}
			if s.testHookBeforeCAS != nil {
				s.testHookBeforeCAS()
			}
			_, err = s.kv.Update(ctx, key, data, entry.Revision())
			if err == nil {
				return rec.FileMeta, nil
			}
			if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
				return FileMeta{}, fmt.Errorf("workspace: update metadata of %s: %w", key, full(s.cfg.Bucket, err))
			}
		}
		if attempt >= s.cfg.MaxAttempts {
			return FileMeta{}, fmt.Errorf("%w: %s: gave up after %d attempts", ErrConflict, key, attempt)
		}
		if err := retryBackoff.Sleep(ctx, attempt); err != nil {
			return FileMeta{}, fmt.Errorf("workspace: update metadata of %s: %w", key, err)
		}
	}
}

// full marks a write JetStream refused as the bucket being at its size limit (ErrFull).
func full(bucket string, err error) error {
	if quorum.Refused(err) {
		return fmt.Errorf("%w: bucket %s: %w", ErrFull, bucket, err)
	}
	return err
}

// newMeta returns the metadata of a file after its first write.
func newMeta(mimeType string, size int64, mod contracts.Modification) FileMeta {
	return FileMeta{
		MimeType:   mimeType,
		Size:       size,
		CreatedAt:  mod.Timestamp,
		UpdatedAt:  mod.Timestamp,
		ModifiedBy: []contracts.Modification{mod},
	}
}

// apply returns m with one more write recorded (see RecordWrite). m is not shared, so its slice is
// reused.
func apply(m FileMeta, mimeType string, size int64, mod contracts.Modification, maxModifiedBy int) FileMeta {
	// ModifiedBy is kept in write order, so its last entry is the latest write so far.
	if n := len(m.ModifiedBy); n == 0 || compareWrites(mod, m.ModifiedBy[n-1]) >= 0 {
		m.MimeType, m.Size = mimeType, size
	}
	if mod.Timestamp.After(m.UpdatedAt) {
		m.UpdatedAt = mod.Timestamp
	}
	// Insert after every entry that is not later than mod: an append in the usual, in-order case.
	i := len(m.ModifiedBy)
	for i > 0 && compareWrites(m.ModifiedBy[i-1], mod) > 0 {
		i--
	}
	m.ModifiedBy = slices.Insert(m.ModifiedBy, i, mod)
	if n := len(m.ModifiedBy) - maxModifiedBy; n > 0 {
		m.ModifiedBy = slices.Delete(m.ModifiedBy, 0, n)
	}
	return m
}

// compareWrites orders writes by timestamp and, for writes with the same timestamp, by request ID,
// message ID and agent ID: a total order, so that the same writes recorded in any order give the
// same metadata (the latest write's MIME type, the same ModifiedBy).
func compareWrites(a, b contracts.Modification) int {
	if c := a.Timestamp.Compare(b.Timestamp); c != 0 {
		return c
	}
	if c := strings.Compare(a.RequestID, b.RequestID); c != 0 {
		return c
	}
	if c := strings.Compare(a.MessageID, b.MessageID); c != 0 {
		return c
	}
	return strings.Compare(a.AgentID, b.AgentID)
}

// Recorded reports whether the write of request requestID is already in m (a redelivered
// workspace.file_written event). An empty requestID is never recorded.
func (m FileMeta) Recorded(requestID string) bool {
	if requestID == "" {
		return false
	}
	for _, mod := range m.ModifiedBy {
		if mod.RequestID == requestID {
			return true
		}
	}
	return false
}

// Get returns the metadata of a file; ErrNotFound when no write was recorded. workspaceID and
// cleanPath are validated as in RecordWrite.
func (s *MetaStore) Get(ctx context.Context, workspaceID, cleanPath string) (FileMeta, error) {
	p, err := checkFile(workspaceID, cleanPath)
	if err != nil {
		return FileMeta{}, err
	}
	key := metaKey(workspaceID, p)
	entry, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return FileMeta{}, fmt.Errorf("%w: %s in workspace %s", ErrNotFound, quote(p), workspaceID)
	}
	if err != nil {
		return FileMeta{}, fmt.Errorf("workspace: read metadata of %s: %w", key, err)
	}
	var rec record
	if err := json.Unmarshal(entry.Value(), &rec); err != nil {
		return FileMeta{}, fmt.Errorf("workspace: stored metadata of %s is corrupt: %w", key, err)
	}
	return rec.FileMeta, nil
}

// retryBackoff spaces the attempts of a write that lost a race: full jitter over an exponentially
// growing window, from backoffBase up to backoffMax.
var retryBackoff = backoff.Policy{Initial: backoffBase, Max: backoffMax, Jitter: true}
