package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/mcpserver"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// resultBytes is the size of a tool result as JSON, as the host receives it.
func resultBytes(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

func blockOf[T mcp.Content](res *mcp.CallToolResult) (T, bool) {
	for _, c := range res.Content {
		if b, ok := c.(T); ok {
			return b, true
		}
	}
	var zero T
	return zero, false
}

// The case: claude-sonnet-4 (built-in registry), default settings, an incompressible
// 1200x900 PNG of about 3.2 MB, which fits Anthropic's limits and so leaves the worker whole.
func TestGetArtifactFitsClaudeDesktopByDefault(t *testing.T) {
	w := servicetest.Start(t, minio, func(c *service.Config) { c.LLMServicesFile = "" })
	png := testfiles.OpaqueNoisyPNG(1200, 900)
	if len(png) < 3_000_000 {
		t.Fatalf("the test image is %d bytes, want an incompressible ~3.2 MB", len(png))
	}
	w.PutArtifact("mcp-big", "image/png", "screen.png", png)

	whole := call(t, session(t, w, mcpserver.Config{ServiceID: "claude-sonnet-4", MaxResultBytes: -1}), "get_artifact", map[string]any{"ref": "artifact:mcp-big"})
	if img, ok := blockOf[*mcp.ImageContent](whole); !ok || !bytes.Equal(img.Data, png) || resultBytes(t, whole) < 4_000_000 {
		t.Fatalf("without a bound the image should go whole (%d bytes of JSON)", resultBytes(t, whole))
	}

	res := call(t, session(t, w, mcpserver.Config{ServiceID: "claude-sonnet-4"}), "get_artifact", map[string]any{"ref": "artifact:mcp-big"})
	n := resultBytes(t, res)
	t.Logf("tool result: %d bytes of JSON (the whole image: %d)", n, resultBytes(t, whole))
	if res.IsError || n >= 1_000_000 {
		t.Fatalf("result of %d bytes (error %v), want under 1 MB", n, res.IsError)
	}
	if n < 850_000 {
		t.Errorf("result of %d bytes: the image should use at least 85%% of the host's 1 MB", n)
	}
	img, ok := blockOf[*mcp.ImageContent](res)
	if !ok {
		t.Fatalf("no image block: %s", texts(res))
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || "image/"+format != img.MIMEType {
		t.Fatalf("image block does not decode as its MIME type %s: %v (%s)", img.MIMEType, err, format)
	}
	if d := cfg.Width*900/1200 - cfg.Height; d > 1 || d < -1 {
		t.Errorf("sent %dx%d, want the 4:3 aspect kept", cfg.Width, cfg.Height)
	}
	if !strings.Contains(texts(res), "1200x900") || !strings.Contains(texts(res), "screen.png") {
		t.Errorf("text %q should name the file and say the image was reduced from 1200x900", texts(res))
	}
}

func TestToolsDeclareMaxResultSizeChars(t *testing.T) {
	w := servicetest.Start(t, minio)
	for _, tc := range []struct {
		cfg  mcpserver.Config
		want float64
	}{
		{mcpserver.Config{}, 500_000}, // Claude Desktop's 1 MB, within Claude Code's ceiling
		{mcpserver.Config{MaxResultBytes: mcpserver.HostLimits[mcpserver.HostClaudeCode]}, 500_000},
		{mcpserver.Config{MaxResultBytes: 80_000}, 80_000},
	} {
		res, err := session(t, w, tc.cfg).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if got := tool.Meta[mcpserver.MaxResultSizeCharsMeta]; got != tc.want {
				t.Errorf("MaxResultBytes %d: %s declares %v, want %v", tc.cfg.MaxResultBytes, tool.Name, got, tc.want)
			}
		}
	}
}

// What does not fit becomes a resource link to the worker's HTTP content endpoint (with its
// token), or is cut.
func TestResultsThatCannotFit(t *testing.T) {
	const token = "s3cret-token"
	w := servicetest.Start(t, minio, func(c *service.Config) { c.HTTPToken = token })
	contentURL := "http://" + w.Svc.HTTPAddr()
	pdf := testfiles.PDFPage("BT /F1 24 Tf 20 40 Td (Big) Tj ET\n%" + strings.Repeat("padding ", 20_000))
	w.PutArtifact("mcp-bigpdf", "application/pdf", "big.pdf", pdf)
	w.PutArtifact("mcp-wav2", "audio/wav", "hello.wav", testfiles.WAV())
	text := strings.Repeat("line of text, 文字\n", 8_000)
	w.PutArtifact("mcp-text", "text/plain", "long.txt", []byte(text))
	const bound = 50_000

	t.Run("file: a link to the content endpoint and how to use it", func(t *testing.T) {
		cs := session(t, w, mcpserver.Config{Capabilities: []string{"text", "file"}, Locale: "en", MaxResultBytes: bound, ContentURL: contentURL, ContentToken: true})
		res := call(t, cs, "get_artifact", map[string]any{"ref": "artifact:mcp-bigpdf"})
		if n := resultBytes(t, res); res.IsError || n > bound {
			t.Fatalf("%d bytes (error %v), want at most %d", n, res.IsError, bound)
		}
		link, ok := blockOf[*mcp.ResourceLink](res)
		want := contentURL + "/artifacts/mcp-bigpdf/content"
		if !ok || link.URI != want || link.MIMEType != "application/pdf" || link.Name != "big.pdf" || link.Size == nil || *link.Size != int64(len(pdf)) {
			t.Fatalf("link %+v, want %s", link, want)
		}
		if _, ok := blockOf[*mcp.EmbeddedResource](res); ok {
			t.Error("the file is still embedded")
		}
		if s := texts(res); !strings.Contains(s, "big.pdf") || !strings.Contains(s, want) || !strings.Contains(s, "HTTP_TOKEN") || strings.Contains(s, token) {
			t.Errorf("text %q: want the file, the URL and the setting named, never the token", s)
		}
		get := func(auth string) (int, []byte) {
			req, _ := http.NewRequest(http.MethodGet, link.URI, nil)
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, body
		}
		if code, body := get("Bearer " + token); code != http.StatusOK || !bytes.Equal(body, pdf) {
			t.Errorf("GET the link with the token: %d, %d bytes, want 200 and the PDF", code, len(body))
		}
		if code, _ := get(""); code != http.StatusUnauthorized {
			t.Errorf("GET the link without the token: %d, want 401", code)
		}
	})

	t.Run("audio without a content endpoint: an artifact URI", func(t *testing.T) {
		cs := session(t, w, mcpserver.Config{Capabilities: []string{"text", "audio"}, MaxResultBytes: 400})
		res := call(t, cs, "get_artifact", map[string]any{"ref": "mcp-wav2"})
		link, ok := blockOf[*mcp.ResourceLink](res)
		if !ok || link.URI != "artifact:mcp-wav2" {
			t.Fatalf("result %+v, want a link to artifact:mcp-wav2", res.Content)
		}
		if _, ok := blockOf[*mcp.AudioContent](res); ok || !strings.Contains(texts(res), "artifact:mcp-wav2") {
			t.Errorf("audio still attached, or the text %q does not say where it is", texts(res))
		}
	})

	t.Run("an image that cannot be reduced enough: a link", func(t *testing.T) {
		png := testfiles.NoisyPNG(200, 200)
		w.PutArtifact("mcp-noise", "image/png", "noise.png", png)
		cs := session(t, w, mcpserver.Config{Capabilities: []string{"text", "vision"}, Locale: "en", MaxResultBytes: 900, ContentURL: contentURL})
		res := call(t, cs, "get_artifact", map[string]any{"ref": "mcp-noise"})
		link, ok := blockOf[*mcp.ResourceLink](res)
		if n := resultBytes(t, res); res.IsError || n > 900 || !ok || link.URI != contentURL+"/artifacts/mcp-noise/content" || link.MIMEType != "image/png" {
			t.Fatalf("%d bytes: %+v", n, res.Content)
		}
		if _, ok := blockOf[*mcp.ImageContent](res); ok || !strings.Contains(texts(res), "too large for this host") {
			t.Errorf("image still attached, or the text %q does not say why", texts(res))
		}
	})

	t.Run("text is cut and says so", func(t *testing.T) {
		cs := session(t, w, mcpserver.Config{Locale: "en", MaxResultBytes: bound, ContentURL: contentURL})
		res := call(t, cs, "get_artifact", map[string]any{"ref": "mcp-text"})
		n := resultBytes(t, res)
		s := texts(res)
		if res.IsError || n > bound || n < bound*9/10 {
			t.Fatalf("%d bytes, want at most %d and not much less", n, bound)
		}
		head, note, ok := strings.Cut(s, "\n[Cut: the first ")
		if !ok || !strings.HasPrefix(text, head) || !strings.Contains(note, contentURL+"/artifacts/mcp-text/content") {
			t.Fatalf("cut text ends %q", s[max(0, len(s)-300):])
		}
	})

	t.Run("small results are untouched", func(t *testing.T) {
		png := testfiles.PNG(16, 16)
		w.PutArtifact("mcp-small", "image/png", "small.png", png)
		res := call(t, session(t, w, mcpserver.Config{Capabilities: []string{"text", "vision"}, MaxResultBytes: bound}), "get_artifact", map[string]any{"ref": "mcp-small"})
		img, ok := blockOf[*mcp.ImageContent](res)
		if !ok || !bytes.Equal(img.Data, png) || len(res.Content) != 2 {
			t.Fatalf("result %+v", res.Content)
		}
	})
}
