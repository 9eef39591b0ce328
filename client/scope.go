package client

import (
	"context"

	"github.com/agentworks/artifact-worker/contracts"
)

type scopeKey struct{}

// WithScope returns ctx with the scope of the calls made with it: the Artifact-Worker-Scope header
// (contracts.HeaderScope), "*" or comma-separated "ws:<workspaceId>" and "artifact:<prefix>*"
// entries. The worker answers a reference outside it exactly as one that does not exist. Set it
// from what the runtime knows (the agent's workspace), never from a model's tool arguments. It wins
// over the client's scope (Client.WithScope); "" leaves the client's.
func WithScope(ctx context.Context, scope string) context.Context {
	return context.WithValue(ctx, scopeKey{}, scope)
}

// WithScope returns a client that sends scope (see the function WithScope) on every call whose
// context carries none. The copy shares c's connection, claim-check bucket and reply subscription
// (closing either closes it for both).
func (c *Client) WithScope(scope string) *Client {
	cp := *c
	cp.scope = scope
	return &cp
}

// scopeOf is the scope a call sends: ctx's, else the client's; "" sends no header.
func (c *Client) scopeOf(ctx context.Context) string {
	if s, _ := ctx.Value(scopeKey{}).(string); s != "" {
		return s
	}
	return c.scope
}

// setScope puts the call's scope, if any, into hdr.
func (c *Client) setScope(ctx context.Context, hdr map[string][]string) {
	if s := c.scopeOf(ctx); s != "" {
		hdr[contracts.HeaderScope] = []string{s}
	}
}
