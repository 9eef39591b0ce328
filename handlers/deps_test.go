package handlers_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoTransportDependency: the handlers are free of the transport. They see handling.Request and
// return results; the JetStream pipeline (messaging, Watermill) runs them. Importing messaging from
// a handler drags Watermill into this graph: use package handling instead.
func TestNoTransportDependency(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/agentworks/artifact-worker/handlers").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "ThreeDotsLabs/watermill") || pkg == "github.com/agentworks/artifact-worker/messaging" {
			t.Errorf("handlers depends on %s: handlers must not import the transport (use package handling)", pkg)
		}
	}
}
