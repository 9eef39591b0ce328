package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/service"
)

// tenantUsage is the --tenant flag's help, as worker call and worker mcp show it.
const tenantUsage = "the tenant whose subjects, claim-check bucket and inbox prefix the calls use, in a worker pool shared by tenants (the worker's TENANTS); empty: the pool's own subjects"

// dial connects with the worker settings and returns a client: the tenant's (client.NewTenant, on a
// connection with the tenant's inbox prefix) when tenant is set.
func dial(ctx context.Context, cfg service.Config, name string, log *slog.Logger, tenant string) (*nats.Conn, *client.Client, error) {
	var extra []nats.Option
	if tenant != "" {
		if err := contracts.ValidateTenant(tenant); err != nil {
			return nil, nil, fmt.Errorf("--tenant: %w", err)
		}
		extra = append(extra, nats.CustomInboxPrefix(contracts.TenantInbox(tenant)))
	}
	nc, err := service.Connect(cfg, name, log, extra...)
	if err != nil {
		return nil, nil, err
	}
	var c *client.Client
	if tenant != "" {
		c, err = client.NewTenant(ctx, nc, tenant)
	} else {
		c, err = client.New(ctx, nc)
	}
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, c, nil
}
