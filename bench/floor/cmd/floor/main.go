// Command floor is the hand-built pipeline `make bench-floor` compares the worker with: the job and
// nothing else. Per subject it runs -concurrency goroutines that each pull one request from a durable
// JetStream consumer (Next), do the work, publish the reply to the request's Reply-To (through the
// claim check when it exceeds the max payload, as the worker does) and then ack: at-least-once, like
// the worker. Its stream and consumers have the worker's settings (file storage, 2 min de-duplication,
// AckWait 60s, MaxDeliver 5, MaxAckPending 1024).
//
//   - floor.get_artifact: GET artifacts/{id} from S3, base64 it, reply with a seed-shaped result
//     (contentType, routing, content, imageUrl with a data URL, metadata): one copy of the image.
//   - floor.preprocess: find the inline base64 data URLs of a context, hash and store all but the last
//     in the history image cache (the worker's KV/Object Store layout, buckets of its own), replace
//     them by their placeholder, reply with the context.
//
// It prints "ready" once its consumers pull.
package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/messaging"
)

// Subjects and stream of the floor pipeline.
const (
	SubjectGetArtifact = "floor.get_artifact"
	SubjectPreprocess  = "floor.preprocess"
	Stream             = "FLOOR"
)

func main() {
	natsURL := flag.String("nats", nats.DefaultURL, "NATS URL")
	endpoint := flag.String("s3-endpoint", "", "S3 host:port")
	access := flag.String("s3-access-key", "", "S3 access key")
	secret := flag.String("s3-secret-key", "", "S3 secret key")
	bucket := flag.String("s3-bucket", "artifacts", "S3 bucket")
	concurrency := flag.Int("concurrency", 4, "requests per subject at once")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	sub, err := nats.Connect(*natsURL, nats.Name("floor-sub"))
	if err != nil {
		log.Fatal(err)
	}
	pub, err := nats.Connect(*natsURL, nats.Name("floor-pub"))
	if err != nil {
		log.Fatal(err)
	}
	js, _ := jetstream.New(sub)
	pjs, _ := jetstream.New(pub)
	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: Stream, Subjects: []string{SubjectGetArtifact, SubjectPreprocess}, Retention: jetstream.LimitsPolicy,
		MaxAge: 24 * time.Hour, Storage: jetstream.FileStorage, Replicas: 1, Duplicates: 2 * time.Minute,
	})
	if err != nil {
		log.Fatal(err)
	}
	claims, err := claimcheck.Bind(ctx, pjs, pub.MaxPayload())
	if err != nil {
		log.Fatal(err)
	}
	cache, err := historyimage.NewCache(ctx, pjs, historyimage.CacheConfig{KVBucket: "FLOOR_HISTORY_IMAGES", ObjectBucket: "FLOOR_HISTORY_IMAGES_BLOBS", TTL: 2 * time.Hour})
	if err != nil {
		log.Fatal(err)
	}
	s3, err := minio.New(*endpoint, &minio.Options{Creds: credentials.NewStaticV4(*access, *secret, "")})
	if err != nil {
		log.Fatal(err)
	}
	f := &floor{pub: pub, claims: claims, cache: cache, s3: s3, bucket: *bucket}
	handlers := map[string]func(context.Context, []byte) ([]byte, error){SubjectGetArtifact: f.getArtifact, SubjectPreprocess: f.preprocess}
	var wg sync.WaitGroup
	for subject, h := range handlers {
		cons, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable: messaging.ConsumerName(subject), FilterSubject: subject, DeliverPolicy: jetstream.DeliverAllPolicy,
			AckPolicy: jetstream.AckExplicitPolicy, AckWait: 60 * time.Second, MaxDeliver: 5, MaxAckPending: 1024,
			ReplayPolicy: jetstream.ReplayInstantPolicy, Replicas: 1,
		})
		if err != nil {
			log.Fatal(err)
		}
		for range *concurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					msg, err := cons.Next(jetstream.FetchMaxWait(2 * time.Second))
					if err != nil {
						continue
					}
					f.serve(ctx, msg, h)
				}
			}()
		}
	}
	fmt.Println("ready")
	wg.Wait()
}

type floor struct {
	pub    *nats.Conn
	claims *claimcheck.Store
	cache  *historyimage.Cache
	s3     *minio.Client
	bucket string
}

// serve resolves the body, runs h, replies, then acks.
func (f *floor) serve(ctx context.Context, msg jetstream.Msg, h func(context.Context, []byte) ([]byte, error)) {
	body, err := f.claims.Resolve(ctx, msg.Headers(), msg.Data())
	if err != nil {
		log.Print(err)
		_ = msg.Nak()
		return
	}
	reply, err := h(ctx, body)
	if err != nil {
		log.Print(err)
		_ = msg.Nak()
		return
	}
	out, err := f.claims.Prepare(ctx, msg.Headers().Get(contracts.HeaderReplyTo), nil, reply)
	if err == nil {
		err = f.pub.PublishMsg(out)
	}
	if err != nil {
		log.Print(err)
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

func (f *floor) getArtifact(ctx context.Context, body []byte) ([]byte, error) {
	var req contracts.GetArtifactRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	id := req.Ref[len("artifact:"):]
	obj, err := f.s3.GetObject(ctx, f.bucket, "artifacts/"+id, minio.GetObjectOptions{})
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(obj)
	obj.Close()
	if err != nil {
		return nil, err
	}
	res := contracts.ContentRouteResult{
		ContentType: contracts.ContentImage, Routing: contracts.RouteImageURL, Content: "工件内容 (" + id + "):",
		ImageURL: &contracts.ImageURLPart{Type: "image_url", ImageURL: contracts.ImageURL{URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)}},
		Metadata: contracts.ArtifactMetadata{ID: id, Type: "image/png", Filename: id, MimeType: "image/png", Size: int64(len(data)), CreatedAt: time.Now().UTC(), BinaryType: contracts.BinaryImage, Format: "png"},
	}
	result, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return envelope(req.RequestID, result), nil
}

var dataURL = []byte(`"data:image/png;base64,`)

func (f *floor) preprocess(ctx context.Context, body []byte) ([]byte, error) {
	var req contracts.PreprocessRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	in := []byte(req.Messages)
	type span struct{ start, end int }
	var spans []span
	for i := 0; ; {
		j := bytes.Index(in[i:], dataURL)
		if j < 0 {
			break
		}
		start := i + j + len(dataURL)
		end := bytes.IndexByte(in[start:], '"')
		if end < 0 {
			break
		}
		spans = append(spans, span{start, start + end})
		i = start + end
	}
	out := make([]byte, 0, len(in))
	last := 0
	for _, s := range spans[:max(len(spans)-1, 0)] { // the last image stays, as in the worker
		data := in[s.start:s.end]
		sum := md5.Sum(data)
		id := hex.EncodeToString(sum[:])
		if err := f.cache.Put(ctx, id, historyimage.Image{MimeType: "image/png", Data: string(data)}); err != nil {
			return nil, err
		}
		out = append(out, in[last:s.start-len(dataURL)]...)
		out = strconv.AppendQuote(out, historyimage.Placeholder(id))
		last = s.end + 1
	}
	out = append(out, in[last:]...)
	result := append([]byte(`{"messages":`), out...)
	result = append(result, fmt.Sprintf(`,"stats":{"images_replaced":%d}}`, max(len(spans)-1, 0))...)
	return envelope(req.RequestID, result), nil
}

func envelope(requestID string, result []byte) []byte {
	id, _ := json.Marshal(requestID)
	b := make([]byte, 0, len(result)+len(id)+40)
	b = append(b, `{"request_id":`...)
	b = append(b, id...)
	b = append(b, `,"ok":true,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

func init() { log.SetOutput(os.Stderr) }
