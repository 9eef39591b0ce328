package mcpserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/mcpserver"
	"github.com/agentworks/artifact-worker/service/servicetest"
	"github.com/agentworks/artifact-worker/workspace"
)

// TestMCPScope: an MCP server whose client carries a scope (worker mcp --scope) reads its
// workspace; a model that asks it for another workspace's file, or an artifact outside the scope,
// gets the tool error of a file that does not exist, word for word.
func TestMCPScope(t *testing.T) {
	w := servicetest.Start(t, minio)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	write := func(ws, content string) string {
		var res contracts.FileWrittenResult
		if err := w.Client.Call(ctx, contracts.SubjectFileWritten, contracts.FileWrittenRequest{RequestID: "mcp-s-" + servicetest.RandomHex(4),
			WorkspaceID: ws, Path: "plan.md", MimeType: "text/markdown", Content: &content}, &res); err != nil {
			t.Fatal(err)
		}
		return res.ArtifactID
	}
	own, other := write("team-a", "# team a"), write("team-b", "# team b")
	w.PutArtifact("b-only", "text/plain", "b.txt", []byte("team b's artifact"))

	scoped := func() *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := mcpserver.New(w.Client.WithScope("ws:team-a"), mcpserver.Config{Locale: "en", WorkspaceID: "team-a"}).Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}()
	if res := call(t, scoped, "get_artifact", map[string]any{"ref": own}); res.IsError || texts(res) != "# team a" {
		t.Fatalf("own workspace: %+v %q", res, texts(res))
	}
	unscoped := session(t, w, mcpserver.Config{Locale: "en"})
	for _, ref := range []string{other, "artifact:b-only"} {
		refused := call(t, scoped, "get_artifact", map[string]any{"ref": ref})
		if !refused.IsError {
			t.Fatalf("%s outside the scope was read: %q", ref, texts(refused))
		}
		// The same reference once it truly does not exist, for a server without a scope.
		ws, rel, err := workspace.DecodeID(ref)
		key := "artifacts/b-only"
		if err == nil {
			key = "workspaces/" + ws + "/" + rel
		}
		if err := w.Store.(interface {
			Delete(context.Context, string) error
		}).Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		missing := call(t, unscoped, "get_artifact", map[string]any{"ref": ref})
		if !missing.IsError || texts(missing) != texts(refused) {
			t.Fatalf("%s: refused %q, not found %q", ref, texts(refused), texts(missing))
		}
	}
}
