package messaging

import (
	"context"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/agentworks/artifact-worker/contracts"
)

// releaseClaim returns, for a claim-checked request the pipeline is done with, the deletion of its
// body from the claim-check bucket; the subscriber runs it once the server confirmed the request's
// ack, so a redelivery (the ack lost) still finds the body. Done means answered (ok, an error reply,
// a recorded reply) or expired. A request that is retried keeps its body for the redelivery; a dead-lettered one keeps
// it for inspection until the bucket's TTL.
func (p *Pipeline) releaseClaim(m *message.Message) func(context.Context) {
	name := m.Metadata.Get(contracts.HeaderClaimCheck)
	if name == "" {
		return nil
	}
	switch stateOf(m.Context()).outcome {
	case outcomeOK, outcomeErrorReply, outcomeExpired, outcomeReplayed:
	default:
		return nil
	}
	return func(ctx context.Context) {
		if err := p.claimsFor(deliveryOf(m).subject).Delete(ctx, name); err != nil {
			p.deps.Logger.WarnContext(ctx, "claim-checked request body not deleted; the bucket's TTL removes it", "subject", deliveryOf(m).subject, "claim_check", name, "error", err.Error())
		}
	}
}
