package service_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
)

// readmeGo is the Go quick start of README.md: the lines between the README markers are the README's
// Go block, word for word (TestReadmeGo checks it and runs this function against a worker).
func readmeGo(ctx context.Context, nc *nats.Conn) (string, error) {
	// README:begin
	c, err := client.New(ctx, nc) // nc: a *nats.Conn to the worker's NATS
	if err != nil {
		return "", err
	}
	var written contracts.FileWrittenResult
	err = c.Call(ctx, contracts.SubjectFileWritten, contracts.FileWrittenRequest{
		RequestID: fmt.Sprint("go-", time.Now().UnixNano()), WorkspaceID: "demo",
		Path: "notes/hello.md", MimeType: "text/markdown", Content: new("# Hello\n"),
	}, &written)
	if err != nil {
		return "", err
	}
	res, err := c.GetArtifact(ctx, contracts.GetArtifactRequest{
		RequestID: fmt.Sprint("go-", time.Now().UnixNano()), Ref: written.ArtifactID, ServiceID: "gpt-4o",
	})
	var werr *contracts.Error
	if errors.As(err, &werr) {
		return "", fmt.Errorf("worker says %s: %s", werr.Code, werr.Message)
	}
	if err != nil {
		return "", err
	}
	return res.Content, nil // "# Hello\n"; res.Assembly holds the parts for the model
	// README:end
}

func TestReadmeGo(t *testing.T) {
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(src), "\t// README:begin\n")
	body, _, _ = strings.Cut(body, "\t// README:end\n")
	body = strings.ReplaceAll("\n"+body, "\n\t", "\n")[1:]
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "<!-- quickstart:go (run by service/readme_test.go) -->\n```go\n"+body+"```\n") {
		t.Errorf("README.md's Go quick start differs from readmeGo in service/readme_test.go; it should read:\n%s", body)
	}
	w := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := readmeGo(ctx, w.Conn)
	if err != nil || got != "# Hello\n" {
		t.Fatalf("quick start: %q, %v", got, err)
	}
}

// TestReadmePackageMap: the README's "How it is built" table names every Go package of the module
// (go list ./...), so a newcomer finds each one there.
func TestReadmePackageMap(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section, _, _ := strings.Cut(string(readme[strings.Index(string(readme), "## How it is built"):]), "\nDelivery is at least once")
	list := exec.Command("go", "list", "./...")
	list.Dir = ".." // the module's root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/agentworks/artifact-worker"
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		if !strings.Contains(section, "`"+rel+"/`") {
			t.Errorf("README's package table lacks `%s/`", rel)
		}
	}
}
