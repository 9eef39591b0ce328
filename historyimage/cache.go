package historyimage

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/internal/jscreate"
	"github.com/agentworks/artifact-worker/internal/membudget"
	"github.com/agentworks/artifact-worker/internal/objput"
	"github.com/agentworks/artifact-worker/scope"
)

// Defaults of CacheConfig.
const (
	DefaultTTL          = 2 * time.Hour
	DefaultKVBucket     = "HISTORY_IMAGES"
	DefaultObjectBucket = "HISTORY_IMAGES_BLOBS"

	// MinTTL is JetStream's smallest stream MaxAge (nats-server rejects less than 100ms).
	MinTTL = 100 * time.Millisecond

	// inlineHeadroom is kept free under the server's max payload for the message's own overhead
	// when InlineMax is derived from the connection.
	inlineHeadroom = 4 << 10
)

// CacheConfig configures a Cache.
type CacheConfig struct {
	// TTL is how long an image stays cached after its last write (default DefaultTTL, at least
	// MinTTL). It is the MaxAge of the KV bucket; the Object Store bucket gets 1.5 x TTL (see Cache).
	TTL time.Duration
	// KVBucket is the JetStream KV bucket holding small images and the index of large ones
	// (default DefaultKVBucket).
	KVBucket string
	// ObjectBucket is the JetStream Object Store bucket holding images too large for a KV value
	// (default DefaultObjectBucket).
	ObjectBucket string
	// InlineMax is the largest KV value, in bytes of its JSON, that is stored inline; an image whose
	// entry would be larger goes to ObjectBucket. 0 means the connection's max payload (nc.MaxPayload(),
	// 1 MiB on a default server) minus 4 KiB of headroom; NewCache rejects a value above that.
	InlineMax int
	// Replicas of both buckets in a NATS cluster, 1..5 (default 1).
	Replicas int
	// MaxBytes limits the size of each bucket (a tenant's: TENANT_HISTORY_MAX_BYTES); an image that
	// does not fit is not cached (Put fails, and Preprocess leaves it in the context). 0 or -1: no
	// limit.
	MaxBytes int64
}

func (c *CacheConfig) setDefaults() {
	c.Replicas = cmp.Or(c.Replicas, 1)
	c.TTL = cmp.Or(c.TTL, DefaultTTL)
	c.KVBucket = cmp.Or(c.KVBucket, DefaultKVBucket)
	c.ObjectBucket = cmp.Or(c.ObjectBucket, DefaultObjectBucket)
}

var bucketName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// Validate reports every invalid field at once, by name. Zero values are valid (they take their
// defaults).
func (c CacheConfig) Validate() error {
	var errs []error
	if c.TTL != 0 && c.TTL < MinTTL {
		errs = append(errs, fmt.Errorf("TTL: %v is below JetStream's minimum MaxAge of %v", c.TTL, MinTTL))
	}
	if c.KVBucket != "" && !bucketName.MatchString(c.KVBucket) {
		errs = append(errs, fmt.Errorf("KVBucket: %q is not a valid bucket name (letters, digits, - and _)", c.KVBucket))
	}
	if c.ObjectBucket != "" && !bucketName.MatchString(c.ObjectBucket) {
		errs = append(errs, fmt.Errorf("ObjectBucket: %q is not a valid bucket name (letters, digits, - and _)", c.ObjectBucket))
	}
	if c.Replicas < 0 || c.Replicas > 5 {
		//lint:ignore ST1005 the message starts with the config field's Go name, as Validate names every bad field
		errs = append(errs, fmt.Errorf("Replicas: %d is not 1..5", c.Replicas))
	}
	if c.InlineMax < 0 {
		errs = append(errs, fmt.Errorf("InlineMax: %d is negative", c.InlineMax))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("historyimage: invalid cache config: %w", err)
	}
	return nil
}

// Cache keeps history images in JetStream for a TTL. It implements Putter.
//
// Layout: every image has one KV entry under "history_image_{md5}" in KVBucket. An image whose entry
// fits InlineMax is stored in it, {"mime_type","size","data"}; a larger one (images up to 20 MB and
// beyond) is stored as the object "history_image_{md5}" in ObjectBucket, and its KV entry is the index
// {"mime_type","size","object"}. size counts base64 characters. Names come from the hash only.
//
// Expiry is the buckets' MaxAge, not per-key TTL. A KV entry expires TTL after it was last written,
// and Put writes it every time (Preprocess calls Put on every turn that still carries the image), so
// a rewrite restarts the clock: an image stays available until TTL after the last turn that carried
// it, and not longer, since Get starts from the KV entry. Objects are the exception to "rewrite
// every time": an object is rewritten only when it is older than TTL/2 (uploading up to 27 MB of
// base64 per image per turn would be wasteful, and a rewrite purges the chunks a concurrent Get may be
// reading), and the Object Store bucket keeps objects 1.5 x TTL, so an object always outlives the
// index pointing at it. Get still reports an index whose object is gone, or an object whose chunks
// have begun to expire, as ErrNotFound, without waiting.
//
// Two replicas may create the buckets and write the same image at once: bucket creation is
// CreateOrUpdate (the last config wins), writes of the same hash store the same bytes, and an
// object's chunks orphaned by a concurrent rewrite expire with the TTL.
//
// A Cache is safe for concurrent use. It owns no goroutines and needs no closing; the connection
// belongs to the caller.
type Cache struct {
	cfg     CacheConfig
	kv      jetstream.KeyValue
	obs     jetstream.ObjectStore
	objPut  *objput.Putter   // writes objects (ObjectStore.Put leaks goroutines: see objput)
	objects jetstream.Stream // the stream behind obs, to read an object's chunks
}

var _ Putter = (*Cache)(nil)

// NewCache creates or updates the two buckets and returns a Cache over them. It is idempotent and safe
// when several replicas start at once.
func NewCache(ctx context.Context, js jetstream.JetStream, cfg CacheConfig) (*Cache, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	limit := int(js.Conn().MaxPayload()) - inlineHeadroom
	switch {
	case limit <= 0:
		return nil, fmt.Errorf("historyimage: server max payload %d is unknown or too small", js.Conn().MaxPayload())
	case cfg.InlineMax == 0:
		cfg.InlineMax = limit
	case cfg.InlineMax > limit:
		return nil, fmt.Errorf("historyimage: InlineMax %d exceeds the server max payload %d less %d bytes of headroom",
			cfg.InlineMax, js.Conn().MaxPayload(), inlineHeadroom)
	}

	// Replicas starting together create them at once (internal/jscreate).
	kv, err := jscreate.Do(ctx, func(ctx context.Context) (jetstream.KeyValue, error) {
		return js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      cfg.KVBucket,
			Description: "history images and the index of large ones (artifact worker)",
			TTL:         cfg.TTL,
			Replicas:    cfg.Replicas,
			MaxBytes:    cmp.Or(cfg.MaxBytes, -1),
		})
	})
	if err != nil {
		return nil, fmt.Errorf("historyimage: KV bucket %s: %w", cfg.KVBucket, err)
	}
	obs, err := jscreate.Do(ctx, func(ctx context.Context) (jetstream.ObjectStore, error) {
		return js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket:      cfg.ObjectBucket,
			Description: "history images too large for a KV value (artifact worker)",
			TTL:         objectTTL(cfg.TTL),
			Replicas:    cfg.Replicas,
			MaxBytes:    cmp.Or(cfg.MaxBytes, -1),
		})
	})
	if err != nil {
		return nil, fmt.Errorf("historyimage: object store %s: %w", cfg.ObjectBucket, err)
	}
	// "OBJ_<bucket>" is the Object Store's stream name by the JetStream spec (ADR-20).
	objects, err := js.Stream(ctx, "OBJ_"+cfg.ObjectBucket)
	if err != nil {
		return nil, fmt.Errorf("historyimage: object store %s: %w", cfg.ObjectBucket, err)
	}
	put, err := objput.New(ctx, js.Conn(), cfg.ObjectBucket)
	if err != nil {
		return nil, fmt.Errorf("historyimage: object store %s: %w", cfg.ObjectBucket, err)
	}
	return &Cache{cfg: cfg, kv: kv, obs: obs, objPut: put, objects: objects}, nil
}

// objectTTL is the MaxAge of the Object Store bucket: half a TTL more than the index, because an
// object is rewritten only once it is older than TTL/2 (see Cache.Put).
func objectTTL(ttl time.Duration) time.Duration { return ttl + ttl/2 }

// Config returns the configuration in effect, defaults applied.
func (c *Cache) Config() CacheConfig { return c.cfg }

// entry is the KV value of an image.
type entry struct {
	MimeType string `json:"mime_type"`
	Size     int    `json:"size"`
	Filename string `json:"filename,omitempty"`
	Data     string `json:"data,omitempty"`
	Object   string `json:"object,omitempty"`
}

// entryOverhead is the smallest JSON of an inline entry besides its data and mime type.
const entryOverhead = len(`{"mime_type":"","size":0,"data":""}`)

// Put stores img under md5 (any form NormalizeID accepts) in the namespace of ctx's scope (see
// cacheKey), restarting its TTL. It is idempotent:
// writing the same image again stores the same bytes (an object younger than TTL/2 is kept as is).
// Errors: ErrInvalidImageID; an error for an image without data; JetStream errors (transient,
// wrapped).
func (c *Cache) Put(ctx context.Context, md5 string, img Image) error {
	return c.put(ctx, md5, img, nil)
}

// PutRaw is Put with the base64 text in data rather than in img.Data (which it ignores), so that
// preprocessing stores a medium straight from the context's bytes, without copying it into a
// string first. data must be standard base64, as preprocessing checks; it is written into the
// entry as it is. *Cache implements RawPutter with it.
func (c *Cache) PutRaw(ctx context.Context, md5 string, data []byte, img Image) error {
	return c.put(ctx, md5, img, data)
}

var _ RawPutter = (*Cache)(nil)

// put stores img, its base64 in raw when raw is not nil, else in img.Data.
func (c *Cache) put(ctx context.Context, md5 string, img Image, raw []byte) error {
	id, err := NormalizeID(md5)
	if err != nil {
		return err
	}
	size := len(img.Data)
	if raw != nil {
		size = len(raw)
	}
	if size == 0 {
		return fmt.Errorf("historyimage: put %s: image has no data", id)
	}
	key := cacheKey(scope.From(ctx).Namespace(), id)
	e := entry{MimeType: img.MimeType, Size: size, Filename: img.Filename}
	if size+len(img.MimeType)+len(img.Filename)+entryOverhead <= c.cfg.InlineMax { // a lower bound of the JSON size
		buf := valueBufs.Get().(*[]byte)
		defer valueBufs.Put(buf)
		value, err := inlineValue((*buf)[:0], e, img.Data, raw)
		if err != nil {
			return fmt.Errorf("historyimage: put %s: %w", id, err)
		}
		*buf = value[:0]
		if len(value) <= c.cfg.InlineMax {
			if _, err := c.kv.Put(ctx, key, value); err != nil {
				return fmt.Errorf("historyimage: put %s: %w", id, err)
			}
			return nil
		}
	}
	if !c.objectFresh(ctx, key, size) {
		meta := jetstream.ObjectMeta{Name: key, Headers: map[string][]string{"Content-Type": {img.MimeType}}}
		var r io.Reader = strings.NewReader(img.Data)
		if raw != nil {
			r = bytes.NewReader(raw)
		}
		// A rewrite under the same name leaves the old chunks to the bucket's TTL (objput does not
		// purge them), as a concurrent rewrite by another replica already did.
		if _, err := c.objPut.Put(ctx, meta, r); err != nil {
			return fmt.Errorf("historyimage: put %s: object: %w", id, err)
		}
	}
	e.Object = key
	value, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("historyimage: put %s: %w", id, err)
	}
	if _, err := c.kv.Put(ctx, key, value); err != nil {
		return fmt.Errorf("historyimage: put %s: index: %w", id, err)
	}
	return nil
}

// valueBufs holds buffers for the JSON of inline entries: a KV put has sent its value when it
// returns, so one buffer serves every put of a goroutine at a time, and a session's screenshots,
// written again on every turn, do not each cost an allocation of their size.
var valueBufs = sync.Pool{New: func() any { return new([]byte) }}

// inlineValue appends to v the JSON of an inline entry: e with its data, raw when not nil, else
// data. Base64 needs no escaping, so it is appended as it is rather than passed through
// json.Marshal (a copy and an escaping pass over every byte); data that is not plain base64 text
// takes json.Marshal.
func inlineValue(v []byte, e entry, data string, raw []byte) ([]byte, error) {
	if raw == nil && !plainText(data) {
		e.Data = data
		return json.Marshal(e)
	}
	head, err := json.Marshal(e) // without data: {"mime_type":...,"size":...}
	if err != nil {
		return nil, err
	}
	n := len(data)
	if raw != nil {
		n = len(raw)
	}
	v = slices.Grow(v[:0], len(head)+len(`,"data":""`)+n)
	v = append(v, head[:len(head)-1]...)
	v = append(v, `,"data":"`...)
	if raw != nil {
		v = append(v, raw...)
	} else {
		v = append(v, data...)
	}
	return append(v, `"}`...), nil
}

// plainText reports whether s needs no escaping in a JSON string (printable ASCII without " and \).
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// objectFresh reports whether the object name already holds an image of size characters (the name
// comes from the hash, so it is the same image) written less than TTL/2 ago. Such an object is not
// rewritten: it outlives the index being written now (the bucket keeps objects 1.5 x TTL), and a
// rewrite would cost the whole upload and purge the chunks under concurrent readers. Any doubt (an
// error, another size, an older object) means "rewrite", which is always safe. The age compares the
// server's timestamp with the local clock; skew matters only when it nears TTL/2.
func (c *Cache) objectFresh(ctx context.Context, name string, size int) bool {
	info, err := c.obs.GetInfo(ctx, name)
	if err != nil || info.Size != uint64(size) {
		return false
	}
	return time.Since(info.ModTime) < c.cfg.TTL/2
}

// Get returns the image stored under md5 (any form NormalizeID accepts) in the namespace of ctx's
// scope: an image cached under another scope is ErrNotFound.
// Errors: ErrInvalidImageID; ErrNotFound when it was never stored or has expired (index or object);
// JetStream errors otherwise (transient, wrapped). An image kept in the Object Store is charged to
// ctx's memory budget (membudget.ArtifactFactor per byte) before it is read; Get waits for room.
func (c *Cache) Get(ctx context.Context, md5 string) (Image, error) {
	id, err := NormalizeID(md5)
	if err != nil {
		return Image{}, err
	}
	kve, err := c.kv.Get(ctx, cacheKey(scope.From(ctx).Namespace(), id))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Image{}, ErrNotFound
	}
	if err != nil {
		return Image{}, fmt.Errorf("historyimage: get %s: %w", id, err)
	}
	var e entry
	if err := json.Unmarshal(kve.Value(), &e); err != nil {
		return Image{}, fmt.Errorf("historyimage: get %s: corrupt entry: %w", id, err)
	}
	if e.Object == "" {
		return Image{Data: e.Data, MimeType: e.MimeType, Filename: e.Filename}, nil
	}
	// A large image is charged to the request's memory budget before it is read, as an artifact
	// is (objectstore): the handler decodes it, may fit it and encodes the reply.
	if err := membudget.Reserve(ctx, membudget.ArtifactFactor*int64(e.Size)); err != nil {
		return Image{}, fmt.Errorf("historyimage: get %s: %w", id, err)
	}
	data, err := c.getObject(ctx, e.Object)
	if errors.Is(err, ErrNotFound) {
		return Image{}, ErrNotFound
	}
	if err != nil {
		return Image{}, fmt.Errorf("historyimage: get %s: %w", id, err)
	}
	return Image{Data: data, MimeType: e.MimeType, Filename: e.Filename}, nil
}

// errChunkGone means an object's chunks changed under a read: they expired, or a concurrent Put of
// the same image replaced them.
var errChunkGone = errors.New("object chunks gone")

// getObject reads the object name. It does not use ObjectStore.Get: that streams the chunks through
// a push consumer, which waits (until ctx ends) for chunks that expire or are purged by a concurrent
// rewrite while it reads, and both happen in normal operation. Instead it fetches the chunks one by
// one with direct gets on the bucket's stream (layout per ADR-20: chunks on $O.<bucket>.C.<nuid>,
// written before the object's meta), checks count, size and SHA-256 digest, and on a gap looks
// at the meta again: a rewrite shows a new object to read, an expiry shows none (ErrNotFound) or the
// same incomplete one (ErrNotFound after a few looks).
func (c *Cache) getObject(ctx context.Context, name string) (string, error) {
	for range 5 {
		info, err := c.obs.GetInfo(ctx, name)
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			return "", ErrNotFound
		}
		if err != nil {
			return "", fmt.Errorf("object info: %w", err)
		}
		data, err := c.readChunks(ctx, info)
		if errors.Is(err, errChunkGone) {
			continue
		}
		return data, err
	}
	return "", ErrNotFound
}

func (c *Cache) readChunks(ctx context.Context, info *jetstream.ObjectInfo) (string, error) {
	want, err := jetstream.DecodeObjectDigest(info.Digest)
	if err != nil {
		return "", fmt.Errorf("object digest: %w", err)
	}
	subject := fmt.Sprintf("$O.%s.C.%s", c.cfg.ObjectBucket, info.NUID)
	var sb strings.Builder
	sb.Grow(int(info.Size))
	h := sha256.New()
	seq := uint64(1)
	for range info.Chunks {
		m, err := c.objects.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return "", errChunkGone
		}
		if err != nil {
			return "", fmt.Errorf("object chunk: %w", err)
		}
		if uint64(sb.Len())+uint64(len(m.Data)) > info.Size {
			return "", errChunkGone
		}
		sb.Write(m.Data)
		h.Write(m.Data)
		seq = m.Sequence + 1
	}
	if uint64(sb.Len()) != info.Size || !bytes.Equal(h.Sum(nil), want) {
		return "", errChunkGone // an expired first chunk shifts the read: too short or wrong digest
	}
	return sb.String(), nil
}
