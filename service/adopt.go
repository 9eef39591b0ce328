package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/messaging"
)

// AdoptDeployed sets the settings that Build writes into shared JetStream resources (stream max age,
// size and replicas, consumer AckWait and MaxDeliver, cache and claim-check TTLs, the claim-check bucket's size limit) to the values the running deployment
// already has, so that a tool like `worker replay`, started with other settings, cannot reconfigure
// production by building its handlers. Resources that do not exist yet keep cfg's values.
func AdoptDeployed(ctx context.Context, js jetstream.JetStream, cfg *Config) error {
	cfg.SetDefaults()
	stream, err := js.Stream(ctx, messaging.DefaultStream)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
	case err != nil:
		return fmt.Errorf("stream: %w", err)
	default:
		cfg.StreamMaxAge = stream.CachedInfo().Config.MaxAge
		cfg.StreamMaxBytes = cmp.Or(stream.CachedInfo().Config.MaxBytes, -1)
		cfg.JetStreamReplicas = max(stream.CachedInfo().Config.Replicas, 1)
		if c, err := stream.Consumer(ctx, messaging.ConsumerName(contracts.SubjectGetArtifact)); err == nil {
			cc := c.CachedInfo().Config
			cfg.AckWait, cfg.MaxDeliver = cc.AckWait, cc.MaxDeliver
		}
	}
	if kv, err := js.KeyValue(ctx, historyimage.DefaultKVBucket); err == nil {
		if st, err := kv.Status(ctx); err == nil {
			cfg.HistoryTTL = st.TTL()
		}
	}
	if obj, err := js.ObjectStore(ctx, contracts.ClaimCheckBucket); err == nil {
		if st, err := obj.Status(ctx); err == nil {
			cfg.ClaimTTL = st.TTL()
			if bs, ok := st.(*jetstream.ObjectBucketStatus); ok && bs.StreamInfo() != nil {
				cfg.ClaimMaxBytes = bs.StreamInfo().Config.MaxBytes
			}
		}
	}
	return nil
}
