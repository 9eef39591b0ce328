package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/miniotest"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// TestMCPTenant: `worker mcp --tenant acme` (over stdio, as an MCP host starts it) against a pool
// serving TENANTS=acme,globex reads ACME's artifact, and answers an artifact only GLOBEX has exactly
// as one nobody has.
func TestMCPTenant(t *testing.T) {
	w := servicetest.Start(t, miniotest.Start(t), func(c *service.Config) { c.Tenants = "acme,globex" })
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for key, body := range map[string]string{
		contracts.TenantKeys("acme") + "artifacts/report":        "ACME's report",
		contracts.TenantKeys("globex") + "artifacts/globex-only": "GLOBEX's secret",
	} {
		if _, err := w.Store.Put(ctx, key, strings.NewReader(body), int64(len(body)), "text/plain", nil); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "mcp", "--tenant", "acme", "--locale", "en", "--service-id", "text-model")
	cmd.Env = append(os.Environ(), cliEnv+"=1", "NATS_URL="+w.NATS.ClientURL())
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	read := func(ref string) (bool, string) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_artifact", Arguments: map[string]any{"ref": ref}})
		if err != nil {
			t.Fatalf("get_artifact %s: %v", ref, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return res.IsError, b.String()
	}
	if isErr, text := read("artifact:report"); isErr || !strings.Contains(text, "ACME's report") {
		t.Fatalf("ACME's own artifact: error %v, %q", isErr, text)
	}
	isErr, other := read("artifact:globex-only")
	_, nobody := read("artifact:zzzzzzzzzzz") // as long as globex-only
	if !isErr || strings.ReplaceAll(other, "globex-only", "REF") != strings.ReplaceAll(nobody, "zzzzzzzzzzz", "REF") {
		t.Fatalf("GLOBEX's artifact through ACME's MCP server: error %v, %q; an artifact nobody has: %q", isErr, other, nobody)
	}
}
