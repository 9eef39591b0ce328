package objput_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/internal/objput"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

// Objects written by a Putter read back through nats.go's ObjectStore byte for byte (digest
// checked by Get), for sizes around the chunk size; the empty object too.
func TestReadableByObjectStore(t *testing.T) {
	nc := natstest.Connect(t, natstest.Start(t))
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	obj, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "B"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := objput.New(ctx, nc, "B")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, objput.ChunkSize - 1, objput.ChunkSize, objput.ChunkSize + 1, 3*objput.ChunkSize + 7, 2 << 20} {
		data := bytes.Repeat([]byte{byte(n)}, n)
		for i := range data {
			data[i] ^= byte(i * 7)
		}
		name := fmt.Sprint("obj-", n)
		info, err := p.Put(ctx, jetstream.ObjectMeta{Name: name}, bytes.NewReader(data))
		if err != nil {
			t.Fatalf("put %d bytes: %v", n, err)
		}
		if info.Size != uint64(n) {
			t.Errorf("%d bytes: info.Size %d", n, info.Size)
		}
		r, err := obj.Get(ctx, name)
		if err != nil {
			t.Fatalf("get %d bytes: %v", n, err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes read back as %d (%v)", n, len(got), err)
		}
	}
}

// Many puts at once leave no goroutine behind (nats.go's ObjectStore.Put leaks about one per few
// hundred: a goroutine reading a nil channel).
func TestNoGoroutineLeak(t *testing.T) {
	nc := natstest.Connect(t, natstest.Start(t))
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	obj, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "L"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := objput.New(ctx, nc, "L")
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 300<<10)
	put := func(g, i int) {
		name := fmt.Sprint("o", g, "-", i)
		if _, err := p.Put(ctx, jetstream.ObjectMeta{Name: name}, bytes.NewReader(data)); err != nil {
			t.Error(err)
		}
		_ = obj.Delete(ctx, name)
	}
	put(0, 0) // the Putter's own goroutines start with its first put
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 250 {
				put(g, i+1)
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines %d before 2,000 puts, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}
