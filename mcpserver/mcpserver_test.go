package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/miniotest"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/mcpserver"
	"github.com/agentworks/artifact-worker/service/servicetest"
	"github.com/agentworks/artifact-worker/tooldefs"
)

var minio *miniotest.Server

func TestMain(m *testing.M) { os.Exit(miniotest.Main(m, &minio)) }

// session connects the Go SDK's client to an MCP server on the worker w, in memory.
func session(t *testing.T, w *servicetest.Worker, cfg mcpserver.Config) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(w.Client, cfg).Connect(ctx, st, nil)
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
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	// A bound on a hung call, not a timing assertion: under -race on a loaded 2-core machine,
	// fitting a 3 MB image to a host's limit takes tens of seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func texts(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPTools(t *testing.T) {
	w := servicetest.Start(t, minio)
	png := testfiles.PNG(16, 16)
	w.PutArtifact("mcp-img", "image/png", "chart.png", png)
	w.PutArtifact("mcp-pdf", "application/pdf", "report.pdf", testfiles.PDF())
	w.PutArtifact("mcp-wav", "audio/wav", "hello.wav", testfiles.WAV())

	t.Run("list tools", func(t *testing.T) {
		cs := session(t, w, mcpserver.Config{})
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := tooldefs.Tools(contracts.LocaleZH)
		if len(res.Tools) != len(want) {
			t.Fatalf("%d tools, want %d", len(res.Tools), len(want))
		}
		for i, tool := range res.Tools {
			if tool.Name != want[i].Name || tool.Description != want[i].Description {
				t.Errorf("tool %d: %s %q, want %s %q", i, tool.Name, tool.Description, want[i].Name, want[i].Description)
			}
		}
		en := session(t, w, mcpserver.Config{Locale: "en"})
		res, err = en.ListTools(context.Background(), nil)
		if err != nil || res.Tools[2].Description != "Create or modify a file in the workspace." {
			t.Fatalf("en descriptions: %v %+v", err, res.Tools)
		}
	})

	t.Run("image block for a vision model", func(t *testing.T) {
		res := call(t, session(t, w, mcpserver.Config{ServiceID: "vision-model"}), "get_artifact", map[string]any{"ref": "artifact:mcp-img"})
		if res.IsError || len(res.Content) != 2 {
			t.Fatalf("result %+v", res)
		}
		img, ok := res.Content[1].(*mcp.ImageContent)
		if !ok || img.MIMEType != "image/png" || !bytes.Equal(img.Data, png) {
			t.Fatalf("second block %#v, want the PNG as an image block", res.Content[1])
		}
		if !strings.Contains(texts(res), "chart.png") || strings.Contains(texts(res), base64.StdEncoding.EncodeToString(png)) {
			t.Errorf("text %q", texts(res))
		}
	})

	t.Run("description for a text-only model", func(t *testing.T) {
		for _, cfg := range []mcpserver.Config{{ServiceID: "text-model"}, {}} {
			res := call(t, session(t, w, cfg), "get_artifact", map[string]any{"ref": "artifact:mcp-img"})
			if res.IsError || len(res.Content) != 1 || !strings.HasPrefix(texts(res), "[无法读取] chart.png") {
				t.Fatalf("config %+v: %+v %q", cfg, res, texts(res))
			}
		}
		// A tool argument names the model too.
		res := call(t, session(t, w, mcpserver.Config{}), "get_artifact", map[string]any{"ref": "artifact:mcp-img", "capabilities": []string{"text", "vision"}})
		if _, ok := res.Content[len(res.Content)-1].(*mcp.ImageContent); !ok {
			t.Fatalf("capabilities argument ignored: %+v", res.Content)
		}
	})

	t.Run("embedded resource for a file", func(t *testing.T) {
		res := call(t, session(t, w, mcpserver.Config{Capabilities: []string{"text", "file"}}), "get_artifact", map[string]any{"ref": "mcp-pdf"})
		er, ok := res.Content[len(res.Content)-1].(*mcp.EmbeddedResource)
		if !ok || er.Resource.MIMEType != "application/pdf" || !bytes.Equal(er.Resource.Blob, testfiles.PDF()) || er.Resource.URI != "artifact:mcp-pdf" {
			t.Fatalf("result %+v, want the PDF as an embedded resource", res.Content)
		}
	})

	t.Run("audio block for a model that hears", func(t *testing.T) {
		res := call(t, session(t, w, mcpserver.Config{Capabilities: []string{"text", "audio"}}), "get_artifact", map[string]any{"ref": "mcp-wav"})
		au, ok := res.Content[len(res.Content)-1].(*mcp.AudioContent)
		if res.IsError || !ok || !strings.HasPrefix(au.MIMEType, "audio/") || !bytes.Equal(au.Data, testfiles.WAV()) {
			t.Fatalf("result %+v, want the WAV as an audio block", res.Content)
		}
	})

	t.Run("write_file then get_artifact", func(t *testing.T) {
		cs := session(t, w, mcpserver.Config{WorkspaceID: "mcp-ws", AgentID: "coder", ServiceID: "text-model"})
		res := call(t, cs, "write_file", map[string]any{"path": "src/a.py", "content": "print(1)\n", "mimeType": "text/x-python"})
		var out contracts.FileWrittenResult
		if res.IsError || json.Unmarshal([]byte(texts(res)), &out) != nil || !out.OK {
			t.Fatalf("write_file: %+v %q", res, texts(res))
		}
		got := call(t, cs, "get_artifact", map[string]any{"ref": out.ArtifactID})
		if texts(got) != "print(1)\n" {
			t.Fatalf("read back %q", texts(got))
		}
		missing := call(t, cs, "write_file", map[string]any{"path": "b.txt", "content": "x"})
		if !missing.IsError || texts(missing) == "" {
			t.Fatalf("write_file without mimeType: %+v", missing)
		}
		none := call(t, session(t, w, mcpserver.Config{}), "write_file", map[string]any{"path": "b.txt", "content": "x", "mimeType": "text/plain"})
		if !none.IsError || texts(none) != "当前智能体未分配工作空间" {
			t.Fatalf("write_file without a workspace: %+v %q", none, texts(none))
		}
	})

	t.Run("history image", func(t *testing.T) {
		b64 := base64.StdEncoding.EncodeToString(png)
		conv := fmt.Sprintf(`[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]],["ai","ok"],["human","again?"]]`, b64)
		var pre contracts.PreprocessResult
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := w.Client.Call(ctx, contracts.SubjectPreprocess, contracts.PreprocessRequest{RequestID: "mcp-pre-" + servicetest.RandomHex(4), Messages: json.RawMessage(conv)}, &pre); err != nil {
			t.Fatal(err)
		}
		id := regexp.MustCompile(`history_[0-9a-f]+`).FindString(string(pre.Messages))
		cs := session(t, w, mcpserver.Config{})
		res := call(t, cs, "get_history_image", map[string]any{"image_md5": id})
		img, ok := res.Content[0].(*mcp.ImageContent)
		if res.IsError || !ok || !bytes.Equal(img.Data, png) || img.MIMEType != "image/png" {
			t.Fatalf("history image: %+v", res)
		}
		bad := call(t, cs, "get_history_image", map[string]any{"image_md5": "xyz"})
		if !bad.IsError || texts(bad) != "无效的图片标识符" {
			t.Fatalf("bad id: %+v %q", bad, texts(bad))
		}
	})

	t.Run("history file as an embedded resource, a description for a model without the capability", func(t *testing.T) {
		pdf := base64.StdEncoding.EncodeToString(testfiles.PDF())
		conv := agentsession.Build(agentsession.Session{Dialect: contracts.DialectAnthropic, Task: "read it", Turns: 2,
			Media: func(i int) agentsession.Media {
				if i == 0 {
					return agentsession.Media{MIME: "application/pdf", Base64: pdf, Filename: "report.pdf"}
				}
				return agentsession.Media{MIME: "image/png", Base64: base64.StdEncoding.EncodeToString(png)}
			}})
		var pre contracts.PreprocessResult
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := w.Client.Call(ctx, contracts.SubjectPreprocess, contracts.PreprocessRequest{RequestID: "mcp-pre-" + servicetest.RandomHex(4), Messages: conv, Dialect: contracts.DialectAnthropic}, &pre); err != nil {
			t.Fatal(err)
		}
		id := regexp.MustCompile(`\[File:history_[0-9a-f]+\]`).FindString(string(pre.Messages))
		if id == "" {
			t.Fatalf("no [File:history_...] in %.300s", pre.Messages)
		}
		res := call(t, session(t, w, mcpserver.Config{}), "get_history_image", map[string]any{"image_md5": id})
		er, ok := res.Content[len(res.Content)-1].(*mcp.EmbeddedResource)
		if res.IsError || !ok || er.Resource.MIMEType != "application/pdf" || !bytes.Equal(er.Resource.Blob, testfiles.PDF()) || !strings.HasPrefix(er.Resource.URI, "history:") {
			t.Fatalf("history file: %+v", res.Content)
		}
		res = call(t, session(t, w, mcpserver.Config{ServiceID: "text-model", Locale: "en"}), "get_history_image", map[string]any{"image_md5": id})
		if res.IsError || len(res.Content) != 1 || !strings.Contains(texts(res), "[Cannot read]") {
			t.Fatalf("history file for a text-only model: %+v %q", res, texts(res))
		}
	})

	t.Run("tool errors carry the worker's message", func(t *testing.T) {
		ref := "artifact:nope-" + servicetest.RandomHex(3)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		err := w.Client.Call(ctx, contracts.SubjectGetArtifact, contracts.GetArtifactRequest{RequestID: "mcp-e-" + servicetest.RandomHex(4), Ref: ref}, nil)
		var we *contracts.Error
		if !errors.As(err, &we) {
			t.Fatalf("NATS call: %v", err)
		}
		var want string
		if we.Assembly == nil || json.Unmarshal(we.Assembly.ToolContent, &want) != nil || !strings.Contains(want, "artifact_not_found") {
			t.Fatalf("NATS error reply without a tool result for the model: %+v", we)
		}
		res := call(t, session(t, w, mcpserver.Config{}), "get_artifact", map[string]any{"ref": ref})
		if !res.IsError || texts(res) != want {
			t.Fatalf("tool error %q, want the NATS reply's tool result %q", texts(res), want)
		}
	})
}
