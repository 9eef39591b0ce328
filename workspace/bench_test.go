package workspace

import (
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

func BenchmarkEncodeID(b *testing.B) {
	for b.Loop() {
		if _, err := EncodeID("ws-0123456789", `src\pkg\文档\report v2.md`); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeID(b *testing.B) {
	id, err := EncodeID("ws-0123456789", "src/pkg/文档/report v2.md")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(id)))
	for b.Loop() {
		if _, _, err := DecodeID(id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordWrite measures one uncontended metadata update against an embedded server.
func BenchmarkRecordWrite(b *testing.B) {
	s := natstest.Start(b)
	nc := natstest.Connect(b, s)
	store := newStoreB(b, nc)
	ctx := b.Context()
	i := 0
	for b.Loop() {
		if _, err := store.RecordWrite(ctx, "ws1", "a.txt", "text/plain", mod("a", i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
