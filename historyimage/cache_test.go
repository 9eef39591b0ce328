package historyimage_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/membudget"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

// kvEntry reads the raw KV entry of an image, to see which path Put took.
func kvEntry(t *testing.T, js jetstream.JetStream, bucket, md5 string) map[string]any {
	t.Helper()
	kv, err := js.KeyValue(t.Context(), bucket)
	if err != nil {
		t.Fatalf("KeyValue: %v", err)
	}
	e, err := kv.Get(t.Context(), "history_image_"+md5)
	if err != nil {
		t.Fatalf("kv get: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(e.Value(), &m); err != nil {
		t.Fatalf("kv entry: %v", err)
	}
	return m
}

func TestCacheRoundTrip(t *testing.T) {
	js := startJetStream(t)
	cache := newCache(t, js, historyimage.CacheConfig{})
	if got := cache.Config().InlineMax; got != 1<<20-4<<10 {
		t.Fatalf("InlineMax = %d, want the 1 MiB max payload less 4 KiB", got)
	}
	tests := []struct {
		name       string
		rawSize    int
		wantObject bool
		short      bool // runs with -short
	}{
		{"small image inline in KV", 10 << 10, false, true},
		{"just under InlineMax inline in KV", 760 << 10, false, true}, // ~1013 KiB of base64
		{"just over InlineMax via the Object Store", 770 << 10, true, true},
		{"3 MB image via the Object Store", 3 << 20, true, true},
		{"20 MB image via the Object Store", 20 << 20, true, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && !tt.short {
				t.Skip("large image skipped with -short")
			}
			data := fakePNG(uint64(100+i), 640, 480, tt.rawSize)
			md5 := md5hex(data)
			if err := cache.Put(t.Context(), md5, historyimage.Image{Data: data, MimeType: "image/png"}); err != nil {
				t.Fatalf("Put: %v", err)
			}
			e := kvEntry(t, js, historyimage.DefaultKVBucket, md5)
			if _, isObject := e["object"]; isObject != tt.wantObject {
				t.Errorf("stored in the Object Store = %v, want %v (entry keys %v)", isObject, tt.wantObject, keys(e))
			}
			if tt.wantObject && e["object"] != "history_image_"+md5 {
				t.Errorf("index object = %v, want history_image_%s", e["object"], md5)
			}
			if e["size"] != float64(len(data)) || e["mime_type"] != "image/png" {
				t.Errorf("entry size %v mime %v, want %d image/png", e["size"], e["mime_type"], len(data))
			}
			img, err := cache.Get(t.Context(), "history_"+md5)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if img.Data != data || img.MimeType != "image/png" {
				t.Errorf("Get = {%d chars, %q}, want the same %d chars as image/png", len(img.Data), img.MimeType, len(data))
			}
			// Writing the same image again is harmless and keeps one entry; PutRaw stores the same
			// entry from bytes, with a filename.
			if err := cache.Put(t.Context(), md5, historyimage.Image{Data: data, MimeType: "image/png"}); err != nil {
				t.Fatalf("second Put: %v", err)
			}
			if img, err := cache.Get(t.Context(), md5); err != nil || img.Data != data {
				t.Errorf("Get after rewrite: %d chars, %v", len(img.Data), err)
			}
			if err := cache.PutRaw(t.Context(), md5, []byte(data), historyimage.Image{MimeType: "image/png", Filename: "shot \"1\".png"}); err != nil {
				t.Fatalf("PutRaw: %v", err)
			}
			if img, err := cache.Get(t.Context(), md5); err != nil || img.Data != data || img.MimeType != "image/png" || img.Filename != `shot "1".png` {
				t.Errorf("Get after PutRaw: %d chars, %q %q, %v", len(img.Data), img.MimeType, img.Filename, err)
			}
		})
	}
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestCacheGetErrors(t *testing.T) {
	cache := newCache(t, startJetStream(t), historyimage.CacheConfig{})
	tests := []struct {
		name, id string
		want     error
	}{
		{"never stored", "0123456789abcdef0123456789abcdef", historyimage.ErrNotFound},
		{"never stored, short id", "history_deadbeef", historyimage.ErrNotFound},
		{"too short", "abc1234", historyimage.ErrInvalidImageID},
		{"not hex", "history_xyz12345", historyimage.ErrInvalidImageID},
		{"key injection", "ab.cd.ef.01", historyimage.ErrInvalidImageID},
		{"empty", "", historyimage.ErrInvalidImageID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := cache.Get(t.Context(), tt.id); !errors.Is(err, tt.want) {
				t.Errorf("Get(%q) error = %v, want %v", tt.id, err, tt.want)
			}
		})
	}
	t.Run("put with invalid id", func(t *testing.T) {
		err := cache.Put(t.Context(), "nothex!!", historyimage.Image{Data: "QUJD", MimeType: "image/png"})
		if !errors.Is(err, historyimage.ErrInvalidImageID) {
			t.Errorf("Put error = %v, want ErrInvalidImageID", err)
		}
	})
	t.Run("put without data", func(t *testing.T) {
		if err := cache.Put(t.Context(), md5hex(""), historyimage.Image{MimeType: "image/png"}); err == nil {
			t.Errorf("Put of an image without data succeeded")
		}
	})
}

// waitFor polls cond every 50ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// forEachStorage runs fn in a parallel subtest for each way the cache stores an image: a small one
// inline in its KV entry, a large one in the Object Store. seed keeps the images of each test apart.
func forEachStorage(t *testing.T, seed uint64, fn func(t *testing.T, md5 string, img historyimage.Image)) {
	tests := []struct {
		name string
		size int
	}{
		{"inline", 4 << 10},
		{"object", 2 << 20},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := fakePNG(seed+uint64(i), 10, 10, tt.size)
			fn(t, md5hex(data), historyimage.Image{Data: data, MimeType: "image/png"})
		})
	}
}

// waitExpired waits for the image md5 to expire and checks that it went as ErrNotFound, no sooner
// than ttl after its last write.
func waitExpired(t *testing.T, cache *historyimage.Cache, md5 string, ttl time.Duration, lastWrite time.Time) {
	t.Helper()
	var err error
	waitFor(t, 20*ttl, "the image to expire after its last write", func() bool {
		_, err = cache.Get(t.Context(), md5)
		return err != nil
	})
	if !errors.Is(err, historyimage.ErrNotFound) {
		t.Fatalf("Get after expiry error = %v, want ErrNotFound", err)
	}
	if age := time.Since(lastWrite); age < ttl {
		t.Errorf("expired %v after the last write, before its TTL of %v", age, ttl)
	}
}

// Entries expire TTL after their last write. JetStream's smallest MaxAge is 100ms (MinTTL); 1s
// leaves room to see the entry before it goes.
func TestCacheExpiry(t *testing.T) {
	const ttl = time.Second
	cache := newCache(t, startJetStream(t), historyimage.CacheConfig{TTL: ttl})
	forEachStorage(t, 200, func(t *testing.T, md5 string, img historyimage.Image) {
		written := time.Now()
		if err := cache.Put(t.Context(), md5, img); err != nil {
			t.Fatalf("Put: %v", err)
		}
		if _, err := cache.Get(t.Context(), md5); err != nil && time.Since(written) < ttl/2 {
			t.Fatalf("Get right after Put: %v", err)
		}
		waitExpired(t, cache, md5, ttl, written)
	})
}

// The KV index outlives the object by a moment (it is written after it); Get must then report
// ErrNotFound, not an error or a hang, whether the whole object or only its chunks are gone.
func TestCacheIndexWithoutObject(t *testing.T) {
	js := startJetStream(t)
	cache := newCache(t, js, historyimage.CacheConfig{})
	obs, err := js.ObjectStore(t.Context(), historyimage.DefaultObjectBucket)
	if err != nil {
		t.Fatalf("ObjectStore: %v", err)
	}
	// chunks returns the stream of the object store, the subject of the chunks of object name, and
	// its info.
	chunks := func(t *testing.T, name string) (jetstream.Stream, string, *jetstream.ObjectInfo) {
		t.Helper()
		info, err := obs.GetInfo(t.Context(), name)
		if err != nil {
			t.Fatalf("GetInfo: %v", err)
		}
		s, err := js.Stream(t.Context(), "OBJ_"+historyimage.DefaultObjectBucket)
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		return s, fmt.Sprintf("$O.%s.C.%s", historyimage.DefaultObjectBucket, info.NUID), info
	}
	tests := []struct {
		name   string
		remove func(t *testing.T, name string)
	}{
		{"object deleted", func(t *testing.T, name string) {
			if err := obs.Delete(t.Context(), name); err != nil {
				t.Fatalf("Delete: %v", err)
			}
		}},
		{"chunks expired, meta still there", func(t *testing.T, name string) {
			s, subj, _ := chunks(t, name)
			if err := s.Purge(t.Context(), jetstream.WithPurgeSubject(subj)); err != nil {
				t.Fatalf("Purge: %v", err)
			}
		}},
		{"first chunk expired", func(t *testing.T, name string) {
			s, subj, info := chunks(t, name)
			m, err := s.GetLastMsgForSubject(t.Context(), subj)
			if err != nil {
				t.Fatalf("last chunk: %v", err)
			}
			if err := s.DeleteMsg(t.Context(), m.Sequence-uint64(info.Chunks)+1); err != nil {
				t.Fatalf("DeleteMsg: %v", err)
			}
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := fakePNG(uint64(300+i), 10, 10, 2<<20)
			md5 := md5hex(data)
			if err := cache.Put(t.Context(), md5, historyimage.Image{Data: data, MimeType: "image/png"}); err != nil {
				t.Fatalf("Put: %v", err)
			}
			tt.remove(t, "history_image_"+md5)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if _, err := cache.Get(ctx, md5); !errors.Is(err, historyimage.ErrNotFound) {
				t.Errorf("Get error = %v, want ErrNotFound", err)
			}
		})
	}
}

// Every turn writes the images of older turns again. With a 4s TTL, turns every 50ms for 10s keep
// an image alive well past its TTL (a rewrite restarts the clock; objects are re-uploaded once older
// than TTL/2), Gets running at the same time always see it (also while an object's chunks are
// replaced), and once the turns stop it expires, no sooner than TTL after the last write. The TTL
// leaves a re-upload 2s to land before the old copy expires: with 1s, a 2 MB upload on a machine
// busy with the rest of `make test` could take longer than the half second it had. The last write's
// time is taken before its Put is sent (the server stamps the entry later, never earlier), so a slow
// Put cannot make the image look expired before its TTL. It takes 15 s: skipped under -short.
func TestCacheRewritesKeepImagesAlive(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 15 s of rewrites and waiting for expiry")
	}
	const ttl = 4 * time.Second
	cache := newCache(t, startJetStream(t), historyimage.CacheConfig{TTL: ttl})
	forEachStorage(t, 600, func(t *testing.T, md5 string, img historyimage.Image) {
		if err := cache.Put(t.Context(), md5, img); err != nil {
			t.Fatalf("Put: %v", err)
		}
		type result struct {
			lastPut time.Time
			err     error
		}
		done := make(chan result, 1)
		go func() {
			var r result
			for end := time.Now().Add(5 * ttl / 2); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				sent := time.Now()
				if r.err = cache.Put(t.Context(), md5, img); r.err != nil {
					break
				}
				r.lastPut = sent
			}
			done <- r
		}()
		var last result
		gets := 0
		for writing := true; writing; gets++ {
			select {
			case last = <-done:
				writing = false
			default:
			}
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			got, err := cache.Get(ctx, md5)
			cancel()
			if err != nil || got.Data != img.Data {
				t.Fatalf("Get %d while turns rewrite the image = %d chars, %v; want the image", gets, len(got.Data), err)
			}
		}
		if last.err != nil {
			t.Fatalf("rewrite: %v", last.err)
		}
		waitExpired(t, cache, md5, ttl, last.lastPut)
		t.Logf("%d reads while rewriting", gets)
	})
}

// Two replicas starting at once both get a working cache, also when their configs differ.
func TestNewCacheConcurrent(t *testing.T) {
	js := startJetStream(t)
	const replicas = 4
	var wg sync.WaitGroup
	caches := make([]*historyimage.Cache, replicas)
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Go(func() {
			caches[i], errs[i] = historyimage.NewCache(t.Context(), js, historyimage.CacheConfig{TTL: time.Duration(i+1) * time.Hour})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: NewCache: %v", i, err)
		}
	}
	data := fakePNG(400, 10, 10, 1000)
	if err := caches[0].Put(t.Context(), md5hex(data), historyimage.Image{Data: data, MimeType: "image/png"}); err != nil {
		t.Fatalf("Put: %v", err)
	}
	for i, c := range caches {
		if img, err := c.Get(t.Context(), md5hex(data)); err != nil || img.Data != data {
			t.Errorf("replica %d: Get = %d chars, %v", i, len(img.Data), err)
		}
	}
	// And again, now that the buckets exist.
	if _, err := historyimage.NewCache(t.Context(), js, historyimage.CacheConfig{}); err != nil {
		t.Errorf("NewCache on existing buckets: %v", err)
	}
}

func TestCacheConfigValidate(t *testing.T) {
	tests := []struct {
		name       string
		cfg        historyimage.CacheConfig
		wantFields []string // each must be named in the error; none means valid
	}{
		{"zero value takes defaults", historyimage.CacheConfig{}, nil},
		{"explicit values", historyimage.CacheConfig{TTL: time.Minute, KVBucket: "a-b_C", ObjectBucket: "X", InlineMax: 1000}, nil},
		{"TTL below JetStream's minimum", historyimage.CacheConfig{TTL: 50 * time.Millisecond}, []string{"TTL"}},
		{"negative TTL", historyimage.CacheConfig{TTL: -time.Second}, []string{"TTL"}},
		{"every field bad at once",
			historyimage.CacheConfig{TTL: time.Millisecond, KVBucket: "a.b", ObjectBucket: "x y", InlineMax: -1},
			[]string{"TTL", "KVBucket", "ObjectBucket", "InlineMax"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.wantFields) == 0 {
				if err != nil {
					t.Errorf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate accepted %+v", tt.cfg)
			}
			for _, f := range tt.wantFields {
				if !strings.Contains(err.Error(), f+":") {
					t.Errorf("error %q does not name %s", err, f)
				}
			}
		})
	}
}

// InlineMax comes from the server's max payload unless given, and may not exceed it.
func TestNewCacheInlineMax(t *testing.T) {
	js := startJetStream(t, natstest.Options{MaxPayload: 256 << 10})
	tests := []struct {
		name    string
		set     int
		want    int
		wantErr bool
	}{
		{"derived from the connection", 0, 256<<10 - 4<<10, false},
		{"given", 64 << 10, 64 << 10, false},
		{"above the max payload", 256 << 10, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := historyimage.NewCache(t.Context(), js, historyimage.CacheConfig{InlineMax: tt.set})
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NewCache accepted InlineMax %d over a 256 KiB max payload", tt.set)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewCache: %v", err)
			}
			if got := c.Config().InlineMax; got != tt.want {
				t.Errorf("InlineMax = %d, want %d", got, tt.want)
			}
			// An image above InlineMax but below 1 MiB must still work on this server.
			data := fakePNG(500, 10, 10, 300<<10)
			if err := c.Put(t.Context(), md5hex(data), historyimage.Image{Data: data, MimeType: "image/png"}); err != nil {
				t.Fatalf("Put: %v", err)
			}
			if img, err := c.Get(t.Context(), md5hex(data)); err != nil || img.Data != data {
				t.Errorf("Get = %d chars, %v", len(img.Data), err)
			}
		})
	}
}

// A history image is read into memory, decoded and encoded again like an artifact: one large enough
// for the Object Store is charged to the request's memory budget before it is read (so
// MEMORY_BUDGET bounds get_history_image too); a small one, already in its KV entry, is not.
func TestCacheGetChargesLargeImagesToTheMemoryBudget(t *testing.T) {
	js := startJetStream(t)
	cache := newCache(t, js, historyimage.CacheConfig{})
	for _, tt := range []struct {
		name    string
		rawSize int
		charged bool
	}{
		{"inline in KV", 10 << 10, false},
		{"in the Object Store", 3 << 20, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := fakePNG(uint64(300+tt.rawSize), 640, 480, tt.rawSize)
			md5 := md5hex(data)
			if err := cache.Put(t.Context(), md5, historyimage.Image{Data: data, MimeType: "image/png"}); err != nil {
				t.Fatalf("Put: %v", err)
			}
			budget := membudget.New(1 << 30)
			ctx, release := budget.Attach(t.Context())
			img, err := cache.Get(ctx, md5)
			if err != nil || img.Data != data {
				t.Fatalf("Get: %v (%d bytes, want %d)", err, len(img.Data), len(data))
			}
			want := int64(0)
			if tt.charged {
				want = membudget.ArtifactFactor * int64(len(data))
			}
			if got := budget.Used(); got != want {
				t.Errorf("%d bytes reserved while the request holds the image, want %d", got, want)
			}
			release()
			if got := budget.Used(); got != 0 {
				t.Errorf("%d bytes reserved after the request ended, want 0", got)
			}
		})
	}
}
