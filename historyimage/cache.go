package historyimage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
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
	// MinTTL). It is the MaxAge of both buckets; see Cache.
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
}

func (c *CacheConfig) setDefaults() {
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	if c.KVBucket == "" {
		c.KVBucket = DefaultKVBucket
	}
	if c.ObjectBucket == "" {
		c.ObjectBucket = DefaultObjectBucket
	}
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
// Expiry is the buckets' MaxAge (not per-key TTL): an entry, and each message of an object, expires
// TTL after it was last written. Writing the same image again (Put is called on every turn that still
// carries it) restarts its clock; an image is dropped TTL after the last turn that carried it. The
// object is written before its index, so the index outlives the object by a moment; Get reports such
// an index, and an object whose chunks have begun to expire, as ErrNotFound.
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
	objects jetstream.Stream // the stream behind obs, to count an object's chunks
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

	kv, err := retryInUse(func() (jetstream.KeyValue, error) {
		return js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      cfg.KVBucket,
			Description: "history images and the index of large ones (artifact worker)",
			TTL:         cfg.TTL,
		})
	})
	if err != nil {
		return nil, fmt.Errorf("historyimage: KV bucket %s: %w", cfg.KVBucket, err)
	}
	obs, err := retryInUse(func() (jetstream.ObjectStore, error) {
		return js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket:      cfg.ObjectBucket,
			Description: "history images too large for a KV value (artifact worker)",
			TTL:         cfg.TTL,
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
	return &Cache{cfg: cfg, kv: kv, obs: obs, objects: objects}, nil
}

// retryInUse retries a CreateOrUpdate that lost a creation race to another replica: both saw no
// stream, the other created it first with a different config; the retry updates it.
func retryInUse[T any](f func() (T, error)) (T, error) {
	var v T
	var err error
	for range 3 {
		v, err = f()
		if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			break
		}
	}
	return v, err
}

// Config returns the configuration in effect, defaults applied.
func (c *Cache) Config() CacheConfig { return c.cfg }

// entry is the KV value of an image.
type entry struct {
	MimeType string `json:"mime_type"`
	Size     int    `json:"size"`
	Data     string `json:"data,omitempty"`
	Object   string `json:"object,omitempty"`
}

// entryOverhead is the smallest JSON of an inline entry besides its data and mime type.
const entryOverhead = len(`{"mime_type":"","size":0,"data":""}`)

// Put stores img under md5 (any form NormalizeID accepts), restarting its TTL. It is idempotent.
// Errors: ErrInvalidImageID; an error for an image without data; JetStream errors (transient,
// wrapped).
func (c *Cache) Put(ctx context.Context, md5 string, img Image) error {
	id, err := NormalizeID(md5)
	if err != nil {
		return err
	}
	if img.Data == "" {
		return fmt.Errorf("historyimage: put %s: image has no data", id)
	}
	key := cacheKey(id)
	e := entry{MimeType: img.MimeType, Size: len(img.Data)}
	if len(img.Data)+len(img.MimeType)+entryOverhead <= c.cfg.InlineMax { // a lower bound of the JSON size
		e.Data = img.Data
		value, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("historyimage: put %s: %w", id, err)
		}
		if len(value) <= c.cfg.InlineMax {
			if _, err := c.kv.Put(ctx, key, value); err != nil {
				return fmt.Errorf("historyimage: put %s: %w", id, err)
			}
			return nil
		}
		e.Data = ""
	}
	meta := jetstream.ObjectMeta{Name: key, Headers: map[string][]string{"Content-Type": {img.MimeType}}}
	if _, err := c.obs.Put(ctx, meta, strings.NewReader(img.Data)); err != nil {
		return fmt.Errorf("historyimage: put %s: object: %w", id, err)
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

// Get returns the image stored under md5 (any form NormalizeID accepts).
// Errors: ErrInvalidImageID; ErrNotFound when it was never stored or has expired (index or object);
// JetStream errors otherwise (transient, wrapped).
func (c *Cache) Get(ctx context.Context, md5 string) (Image, error) {
	id, err := NormalizeID(md5)
	if err != nil {
		return Image{}, err
	}
	kve, err := c.kv.Get(ctx, cacheKey(id))
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
		return Image{Data: e.Data, MimeType: e.MimeType}, nil
	}
	data, err := c.getObject(ctx, e.Object)
	if err != nil {
		return Image{}, fmt.Errorf("historyimage: get %s: %w", id, err)
	}
	return Image{Data: data, MimeType: e.MimeType}, nil
}

// getObject reads an object that may be expiring. Its chunks were written before its meta, so they
// expire first: if any are gone, the object is reported as ErrNotFound rather than read (a read of an
// object without chunks would wait for them until ctx ends).
func (c *Cache) getObject(ctx context.Context, name string) (string, error) {
	info, err := c.obs.GetInfo(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("object info: %w", err)
	}
	chunks := fmt.Sprintf("$O.%s.C.%s", c.cfg.ObjectBucket, info.NUID)
	si, err := c.objects.Info(ctx, jetstream.WithSubjectFilter(chunks))
	if err != nil {
		return "", fmt.Errorf("object chunks: %w", err)
	}
	if si.State.Subjects[chunks] < uint64(info.Chunks) {
		return "", ErrNotFound
	}
	r, err := c.obs.Get(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("object: %w", err)
	}
	defer r.Close()
	var sb strings.Builder
	sb.Grow(int(info.Size))
	if _, err := io.Copy(&sb, r); err != nil {
		if errors.Is(err, jetstream.ErrDigestMismatch) {
			return "", ErrNotFound // chunks expired while reading
		}
		return "", fmt.Errorf("object: %w", err)
	}
	return sb.String(), nil
}
