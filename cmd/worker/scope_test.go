package main

import (
	"strings"
	"testing"
)

// TestScopeFlags: a malformed --scope is bad usage (exit 2, naming the flag) for worker call and
// worker mcp, before NATS is tried; so is an MCP server whose scope would refuse its own write_file.
func TestScopeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"call", "tool.get_artifact", "--data", `{"ref":"x"}`, "--scope", "ws:team-a,"}, "--scope: malformed Artifact-Worker-Scope header: entry 2 is empty"},
		{[]string{"mcp", "--scope", "team-a"}, "--scope: malformed Artifact-Worker-Scope header"},
		{[]string{"mcp", "--scope", "ws:team-a", "--workspace-id", "team-b"}, "does not hold --workspace-id team-b"},
		{[]string{"call", "tool.get_artifact", "--data", `{"ref":"x"}`, "--tenant", "Acme.x"}, `--tenant: tenant "Acme.x": only a-z`},
		{[]string{"mcp", "--tenant", "acme>"}, `--tenant: tenant "acme>": only a-z`},
	} {
		code, stdout, stderr := worker(t, tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.says) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d saying %q", tc.args, code, stdout, stderr, exitUsage, tc.says)
		}
	}
}
