// Package objput writes objects into a JetStream Object Store bucket, in the format nats.go's
// ObjectStore reads (chunks on $O.<bucket>.C.<nuid>, then one rolled-up metadata message on
// $O.<bucket>.M.<base64url name>), through a JetStream context made once per Putter.
//
// It exists because nats.go's ObjectStore.Put (v1.55) makes a JetStream context per call and starts
// a goroutine that reads the context's connection-status channel; when that goroutine is scheduled
// only after Put has cleaned up, it reads a nil channel and blocks forever: about one goroutine
// leaked per few hundred puts (seen in the worker's soak: 189 to 229 goroutines in 15 minutes). A
// Putter's context and its one such goroutine live as long as the Putter.
//
// The defect is upstream, in nats.go's object.go (Put's status-watching goroutine, as of v1.55.0);
// no upstream issue tracks it yet. This package can go when a nats.go release's Put no longer starts
// a goroutine per call that can block: bump nats.go, replace objput.New/Put with
// ObjectStore.Put, and run `make soak`: the goroutine count it reports must stay flat over the
// 15 minutes (the soak fails when it does not).
package objput

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ChunkSize is the size of the chunks, nats.go's default.
const ChunkSize = 128 * 1024

// ackTimeout bounds waiting for one chunk's acknowledgement when the caller's context has no
// deadline; an unanswered chunk is then an error, not a pending entry kept forever.
const ackTimeout = 30 * time.Second

// Putter writes objects into one bucket. It is safe for concurrent use.
type Putter struct {
	js     jetstream.JetStream
	stream jetstream.Stream
	bucket string
}

// New returns a Putter for the existing bucket on nc.
func New(ctx context.Context, nc *nats.Conn, bucket string) (*Putter, error) {
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(ackTimeout))
	if err != nil {
		return nil, err
	}
	stream, err := js.Stream(ctx, "OBJ_"+bucket)
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", bucket, err)
	}
	return &Putter{js: js, stream: stream, bucket: bucket}, nil
}

// Put stores r under meta.Name, as ObjectStore.Put does, for a name that is not in the bucket yet
// (an object already there keeps its chunks until the bucket's TTL). On failure the chunks already
// stored are purged. An error from JetStream (a full bucket: an *jetstream.APIError) is returned
// wrapped.
func (p *Putter) Put(ctx context.Context, meta jetstream.ObjectMeta, r io.Reader) (*jetstream.ObjectInfo, error) {
	if meta.Name == "" {
		return nil, jetstream.ErrBadObjectMeta
	}
	if meta.Opts == nil {
		meta.Opts = &jetstream.ObjectMetaOptions{ChunkSize: ChunkSize}
	}
	chunkSize := int(meta.Opts.ChunkSize)
	if chunkSize <= 0 {
		chunkSize = ChunkSize
		meta.Opts.ChunkSize = ChunkSize
	}
	id, err := newNUID()
	if err != nil {
		return nil, err
	}
	chunkSubj := "$O." + p.bucket + ".C." + id
	info := &jetstream.ObjectInfo{ObjectMeta: meta, Bucket: p.bucket, NUID: id}
	var pending []jetstream.PubAckFuture
	settled := 0 // pending[:settled] were waited for
	fail := func(err error) (*jetstream.ObjectInfo, error) {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		// Chunks still in flight would be stored after the purge: let them settle first.
		for _, f := range pending[settled:] {
			select {
			case <-f.Ok():
			case <-f.Err():
			case <-pctx.Done():
			}
		}
		_ = p.stream.Purge(pctx, jetstream.WithPurgeSubject(chunkSubj))
		return nil, err
	}
	h := sha256.New()
	// One buffer for every chunk, as nats.go's Put: a publish copies the chunk into the connection's
	// buffer before it returns, and without retries (WithRetryAttempts(0)) it is never sent again.
	buf := make([]byte, chunkSize)
	for {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			h.Write(buf[:n])
			f, err := p.js.PublishMsgAsync(&nats.Msg{Subject: chunkSubj, Data: buf[:n]}, jetstream.WithRetryAttempts(0))
			if err != nil {
				return fail(err)
			}
			pending = append(pending, f)
			info.Size += uint64(n)
			info.Chunks++
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return fail(rerr)
		}
	}
	for _, f := range pending {
		select {
		case <-f.Ok():
			settled++
		case err := <-f.Err():
			settled++
			return fail(err)
		case <-ctx.Done():
			return fail(ctx.Err())
		}
	}
	info.Digest = jetstream.GetObjectDigestValue(h)
	data, err := json.Marshal(info)
	if err != nil {
		return fail(err)
	}
	mm := nats.NewMsg("$O." + p.bucket + ".M." + base64.URLEncoding.EncodeToString([]byte(meta.Name)))
	mm.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	mm.Data = data
	if _, err := p.js.PublishMsg(ctx, mm); err != nil {
		return fail(err)
	}
	info.ModTime = time.Now().UTC()
	return info, nil
}

// newNUID returns a unique token for the object's chunk subject.
func newNUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("object put: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
