package objectstore_test

import (
	"bytes"
	"testing"

	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/objectstore/storetest"
)

// benchmarkReadAll measures the hot path of the worker: reading a whole artifact.
func benchmarkReadAll(b *testing.B, s storetest.Store, size int) {
	content := storetest.Bytes(size, 5)
	ctx := b.Context()
	if _, err := s.Put(ctx, "artifacts/bench", bytes.NewReader(content), int64(size), "image/png", map[string]string{"filename": "图.png"}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		if _, _, err := s.ReadAll(ctx, "artifacts/bench", int64(size)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadAll(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		b.Run("Local/"+sizeName(size), func(b *testing.B) {
			l, err := objectstore.NewLocal(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			benchmarkReadAll(b, l, size)
		})
		b.Run("S3/"+sizeName(size), func(b *testing.B) {
			srv := sharedMinIO(b)
			benchmarkReadAll(b, newS3(b, srv), size)
		})
		b.Run("VersityGW/"+sizeName(size), func(b *testing.B) {
			srv := sharedVersityGW(b)
			benchmarkReadAll(b, newS3(b, srv), size)
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return "1MiB"
	}
	return "4KiB"
}
