package historyimage_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

// pngHeader returns the signature, IHDR and IEND of a w x h PNG: enough for a header decoder.
func pngHeader(w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		c := crc32.NewIEEE()
		c.Write([]byte(typ))
		c.Write(data)
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, c.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk("IHDR", ihdr)
	chunk("IEND", nil)
	return b.Bytes()
}

// fakePNG returns the base64 of a w x h PNG header followed by random bytes up to size bytes.
func fakePNG(seed uint64, w, h, size int) string {
	raw := pngHeader(w, h)
	r := rand.New(rand.NewPCG(seed, seed))
	for len(raw) < size {
		raw = binary.LittleEndian.AppendUint64(raw, r.Uint64())
	}
	return base64.StdEncoding.EncodeToString(raw[:max(size, len(pngHeader(w, h)))])
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// placeholderPart is the text part that replaces the image with base64 data.
func placeholderPart(data string) string {
	return `{"type":"text","text":"[Picture:history_` + md5hex(data) + `]"}`
}

// memPutter is an in-memory Putter that can be told to fail.
type memPutter struct {
	mu     sync.Mutex
	images map[string]historyimage.Image
	puts   int
	fail   func(md5 string) bool
}

var errPutFailed = errors.New("put failed (test)")

func newMemPutter() *memPutter { return &memPutter{images: map[string]historyimage.Image{}} }

func (p *memPutter) Put(_ context.Context, md5 string, img historyimage.Image) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.puts++
	if p.fail != nil && p.fail(md5) {
		return errPutFailed
	}
	p.images[md5] = img
	return nil
}

// noopPutter accepts and forgets every image.
type noopPutter struct{}

func (noopPutter) Put(context.Context, string, historyimage.Image) error { return nil }

// startJetStream runs an embedded nats-server and returns a JetStream client on it.
func startJetStream(t testing.TB, opts ...natstest.Options) jetstream.JetStream {
	t.Helper()
	s := natstest.Start(t, opts...)
	js, err := jetstream.New(natstest.Connect(t, s))
	if err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	return js
}

func newCache(t testing.TB, js jetstream.JetStream, cfg historyimage.CacheConfig) *historyimage.Cache {
	t.Helper()
	c, err := historyimage.NewCache(t.Context(), js, cfg)
	if err != nil {
		t.Fatalf("NewCache: %v", err)
	}
	return c
}
