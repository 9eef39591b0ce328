package mcpserver_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/mcpserver"
	"github.com/agentworks/artifact-worker/pdfpages/pdfpagestest"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// pageSequence lists a result's blocks: "T:" and the first line of each text, "I" for each image.
func pageSequence(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		switch b := c.(type) {
		case *mcp.TextContent:
			first, _, _ := strings.Cut(b.Text, "\n")
			out = append(out, "T:"+first)
		case *mcp.ImageContent:
			out = append(out, "I")
		default:
			out = append(out, "?")
		}
	}
	return out
}

// A PDF for a model that reads images but takes no PDF: get_artifact answers with each page's text
// (its name and text layer) and then its image; under a host bound that the pages exceed, every
// page image is fitted into its share of the bound, none dropped.
func TestGetArtifactPDFPagesAsImages(t *testing.T) {
	w := servicetest.Start(t, minio, func(c *service.Config) {
		// The compiled module the other tests of the machine share, when there is one.
		_ = os.CopyFS(filepath.Join(c.DataDir, "wasm-cache"), os.DirFS(pdfpagestest.CacheDir()))
	})
	w.PutArtifact("mcp-report", "application/pdf", "report.pdf", testfiles.PDFFile("report.pdf"))
	cfg := mcpserver.Config{Capabilities: []string{"text", "vision"}, Locale: "en", MaxResultBytes: -1}
	whole := call(t, session(t, w, cfg), "get_artifact", map[string]any{"ref": "artifact:mcp-report"})
	want := []string{"T:report.pdf (artifact:mcp-report): a PDF of 2 pages. Pages 1-2 follow in order: each page's name and text layer, then its image.",
		"T:report.pdf, page 1 of 2", "I", "T:report.pdf, page 2 of 2", "I"}
	if got := pageSequence(whole); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("blocks %q, want %q", got, want)
	}
	if !strings.Contains(texts(whole), "Text layer:\nPage two: outlook and risks.") {
		t.Errorf("text layer missing: %.400s", texts(whole))
	}

	// The pages argument selects; a bad one is a tool error saying what is wrong, before the worker
	// is asked; both tools declare it.
	cs := session(t, w, cfg)
	two := call(t, cs, "get_artifact", map[string]any{"ref": "artifact:mcp-report", "pages": "2"})
	if got := strings.Join(pageSequence(two), "|"); two.IsError || !strings.HasSuffix(got, "|T:report.pdf, page 2 of 2|I") || strings.Contains(got, "page 1 of 2") {
		t.Errorf("pages 2: blocks %s", got)
	}
	for _, bad := range []string{"5-2", "two", "0"} {
		res := call(t, cs, "get_artifact", map[string]any{"ref": "artifact:mcp-report", "pages": bad})
		if !res.IsError || !strings.HasPrefix(texts(res), "invalid arguments: pages: invalid page selection: ") {
			t.Errorf("pages %q: error %v, %q", bad, res.IsError, texts(res))
		}
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "write_file" {
			continue
		}
		if props, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any); props["pages"] == nil {
			t.Errorf("%s declares no pages argument", tool.Name)
		}
	}

	n := resultBytes(t, whole)
	bound := n * 6 / 10
	cfg.MaxResultBytes = bound
	res := call(t, session(t, w, cfg), "get_artifact", map[string]any{"ref": "artifact:mcp-report"})
	got := resultBytes(t, res)
	t.Logf("whole %d bytes, bound %d, fitted %d", n, bound, got)
	if res.IsError || got > bound {
		t.Fatalf("%d bytes (error %v), want at most %d", got, res.IsError, bound)
	}
	images := 0
	for _, c := range res.Content {
		if _, ok := c.(*mcp.ImageContent); ok {
			images++
		}
	}
	seq := strings.Join(pageSequence(res), "|")
	if images != 2 || !strings.Contains(seq, "T:report.pdf, page 1 of 2|I|") || strings.Index(seq, "page 2 of 2") < strings.Index(seq, "page 1 of 2") {
		t.Fatalf("fitted blocks %s", seq)
	}
	if _, ok := blockOf[*mcp.ResourceLink](res); ok {
		t.Errorf("a page became a link: %s", seq)
	}

	// The same PDF taken out of an older turn: get_history_image of its placeholder.
	conv := agentsession.Build(agentsession.Session{Dialect: contracts.DialectOpenAIChat, Task: "read it", Turns: 2,
		Media: func(i int) agentsession.Media {
			if i == 0 {
				return agentsession.Media{MIME: "application/pdf", Base64: base64.StdEncoding.EncodeToString(testfiles.PDFFile("report.pdf")), Filename: "report.pdf"}
			}
			return agentsession.Media{MIME: "image/png", Base64: base64.StdEncoding.EncodeToString(testfiles.PNG(20, 20))}
		}})
	var pre contracts.PreprocessResult
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.Client.Call(ctx, contracts.SubjectPreprocess, contracts.PreprocessRequest{RequestID: "mcp-pre-" + servicetest.RandomHex(4), Messages: conv, Dialect: contracts.DialectOpenAIChat}, &pre); err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`\[File:history_[0-9a-f]+\]`).FindString(string(pre.Messages))
	hist := call(t, session(t, w, mcpserver.Config{Capabilities: []string{"text", "vision"}, Locale: "en", MaxResultBytes: -1}), "get_history_image", map[string]any{"image_md5": id})
	if got := strings.Join(pageSequence(hist), "|"); hist.IsError || got != "T:report.pdf, page 1 of 2|I|T:report.pdf, page 2 of 2|I" {
		t.Fatalf("history PDF %s: blocks %s", id, got)
	}
	hist = call(t, session(t, w, mcpserver.Config{Capabilities: []string{"text", "vision"}, Locale: "en", MaxResultBytes: -1}), "get_history_image", map[string]any{"image_md5": id, "pages": "2"})
	if got := strings.Join(pageSequence(hist), "|"); hist.IsError || got != "T:report.pdf, page 2 of 2|I" {
		t.Errorf("history PDF %s, pages 2: blocks %s", id, got)
	}
}
