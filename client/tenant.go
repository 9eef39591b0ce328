package client

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/quorum"
)

// NewTenant returns a client of tenant in a worker pool shared by several tenants (the worker's
// TENANTS; contracts/README.md, "Tenants"): its calls go to the tenant's subjects
// (contracts.TenantSubject: Call(ctx, contracts.SubjectGetArtifact, ...) publishes on
// tenant.<tenant>.tool.get_artifact), its large bodies through the tenant's claim-check bucket
// (contracts.TenantClaimCheckBucket), and its replies arrive under the tenant's inbox prefix, which
// nc must have been connected with: nats.CustomInboxPrefix(contracts.TenantInbox(tenant)). The NATS
// server's permissions, not this option, are what keep a tenant to its own subjects.
func NewTenant(ctx context.Context, nc *nats.Conn, tenant string) (*Client, error) {
	if err := contracts.ValidateTenant(tenant); err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if want := contracts.TenantInbox(tenant) + "."; !strings.HasPrefix(nc.NewInbox(), want) {
		return nil, fmt.Errorf("client: tenant %s: connect with nats.CustomInboxPrefix(%q): the worker answers the tenant's requests only under it", tenant, contracts.TenantInbox(tenant))
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	claims, err := claimcheck.BindBucket(ctx, js, contracts.TenantClaimCheckBucket(tenant), nc.MaxPayload())
	if err != nil {
		return nil, err
	}
	r, err := newReplies(nc)
	if err != nil {
		return nil, err
	}
	return &Client{nc: nc, js: js, claims: claims.Limit(math.MaxInt64), replies: r, tenant: tenant, quorum: quorum.NewTracker(nc, quorum.DefaultAfter, nil)}, nil
}

// subjectOf is the subject a call on subject publishes to: the tenant's copy of a request subject
// for a tenant's client, else subject itself.
func (c *Client) subjectOf(subject string) string {
	if c.tenant != "" && slices.Contains(contracts.RequestSubjects, subject) {
		return contracts.TenantSubject(c.tenant, subject)
	}
	return subject
}
