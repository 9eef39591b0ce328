package service_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	routingpkg "github.com/agentworks/artifact-worker/routing"
	"github.com/agentworks/artifact-worker/service"
)

func extractFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "extract", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestGetArtifactExtractsText: a text-only model that opts in (request field or registry entry)
// reads a real PDF, DOCX, XLSX or PPTX stored in MinIO, by artifact id or by workspace path;
// without opt-in the description stays; unreadable documents get the processing-failure text.
func TestGetArtifactExtractsText(t *testing.T) {
	w := startWorker(t, func(c *service.Config) { c.ExtractMaxChars = 2000 })
	w.PutArtifact("pdf", "application/pdf", "report.pdf", extractFixture(t, "report.pdf"))
	w.PutArtifact("xlsx", "", "sheet.xlsx", extractFixture(t, "sheet.xlsx"))
	w.PutArtifact("scan", "application/pdf", "scan.pdf", extractFixture(t, "scanned.pdf"))
	w.PutArtifact("locked", "application/pdf", "locked.pdf", extractFixture(t, "locked.pdf"))
	w.PutArtifact("long", "application/pdf", "long.pdf", extractFixture(t, "long.pdf"))
	rep, _ := fileWritten(t, w, contracts.FileWrittenRequest{WorkspaceID: "ws-x", Path: "decks/plan.pptx", AgentID: "a", MimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
		ContentBase64: ptr(base64.StdEncoding.EncodeToString(extractFixture(t, "slides.pptx")))})
	if !rep.OK {
		t.Fatalf("file_written: %+v", rep.Error)
	}
	wsRef := "ws:ws-x:" + base64.RawURLEncoding.EncodeToString([]byte("decks/plan.pptx"))
	yes, no := new(bool), new(bool)
	*yes = true

	tests := []struct {
		name    string
		req     contracts.GetArtifactRequest
		want    string // the whole content, or its start when prefix
		prefix  bool
		suffix  string
		routing string
	}{
		{name: "pdf, request opts in", req: contracts.GetArtifactRequest{Ref: "artifact:pdf", ServiceID: "text-model", ExtractText: yes},
			want: "[已提取文本] report.pdf (artifact:pdf)\n--- 第 1 页 ---\nQuarterly Report 季度报告\nRevenue grew by 12 percent in the third quarter.\n第三季度收入增长了百分之十二。\nRegion Revenue 地区备注\nNorth 1200 北方\n--- 第 2 页 ---\nPage two: outlook and risks.\n第二页：展望与风险。"},
		{name: "xlsx, registry entry opts in, English", req: contracts.GetArtifactRequest{Ref: "xlsx", ServiceID: "reader-model", Locale: "en"},
			want: "[Extracted text] sheet.xlsx (artifact:xlsx)\n--- Sheet 1: Sales ---\nRegion,Units,Note\nNorth,1200,\"late, but complete\"\nSouth,2.5\n--- Sheet 2: 备注 ---\n项目,,状态\n迁移,,完成"},
		{name: "workspace pptx by ws: ref", req: contracts.GetArtifactRequest{Ref: wsRef, ServiceID: "text-model", ExtractText: yes},
			want: "[已提取文本] plan.pptx (artifact:" + wsRef + ")\n--- 第 1 张幻灯片 ---\nRoadmap 2027\nShip the worker\n发布工作器\n--- 第 2 张幻灯片 ---\nRisks 风险"},
		{name: "request opts out of the registry's extraction", req: contracts.GetArtifactRequest{Ref: "artifact:pdf", ServiceID: "reader-model", ExtractText: no},
			want: "[无法读取] report.pdf (artifact:pdf)\n", prefix: true},
		{name: "no opt-in: the description", req: contracts.GetArtifactRequest{Ref: "artifact:pdf", ServiceID: "text-model"},
			want: "[无法读取] report.pdf (artifact:pdf)\n", prefix: true},
		{name: "a model that takes the file gets the file", req: contracts.GetArtifactRequest{Ref: "artifact:pdf", ServiceID: "vision-model", ExtractText: yes},
			routing: "file", want: "工件内容 (report.pdf):"},
		{name: "scanned pdf", req: contracts.GetArtifactRequest{Ref: "artifact:scan", ServiceID: "text-model", ExtractText: yes},
			want: "[无法提取文本] scan.pdf (artifact:scan)\n此 PDF 共 1 页，没有文本层（可能是扫描件），无法提取文字。\n建议：请使用具备文件或视觉能力的智能体读取，或先进行文字识别（OCR）。"},
		{name: "encrypted pdf", req: contracts.GetArtifactRequest{Ref: "artifact:locked", ServiceID: "text-model", ExtractText: yes},
			want: "[文件处理失败: locked.pdf]\n错误: 无法读取文件内容\n请检查文件是否损坏"},
		{name: "truncated at EXTRACT_MAX_CHARS", req: contracts.GetArtifactRequest{Ref: "artifact:long", ServiceID: "text-model", ExtractText: yes},
			want: "[已提取文本] long.pdf (artifact:long)\n--- 第 1 页 ---\nPage 1, paragraph 1.", prefix: true, suffix: "\n[内容已截断：还有 65478 个字符未显示（已显示 2000 个，共 67478 个）]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, res := getArtifact(t, w, tt.req)
			if !rep.OK {
				t.Fatalf("error reply: %+v", rep.Error)
			}
			routing := tt.routing
			if routing == "" {
				routing = "text"
			}
			if res.Routing != routing || res.ContentType != "binary" {
				t.Fatalf("routing %s contentType %s, want %s binary", res.Routing, res.ContentType, routing)
			}
			got := res.Content
			if tt.prefix {
				if !strings.HasPrefix(got, tt.want) || !strings.HasSuffix(got, tt.suffix) {
					t.Fatalf("content:\n%s\nwant it to start with\n%s\nand end with\n%s", got, tt.want, tt.suffix)
				}
			} else if got != tt.want {
				t.Fatalf("content:\n%s\nwant\n%s", got, tt.want)
			}
			x := res.Metadata.Extracted
			switch extracted := strings.HasPrefix(got, "[已提取文本]") || strings.HasPrefix(got, "[Extracted text]") || strings.HasPrefix(got, "[无法提取文本]"); {
			case extracted && (x == nil || x.Read != x.Total || x.Total == 0):
				t.Errorf("metadata.extracted = %+v, want every part read", x)
			case !extracted && x != nil:
				t.Errorf("metadata.extracted = %+v on a reply without extracted text", x)
			case tt.suffix != "" && (!x.Truncated || x.Remaining != 65478 || x.Chars != 2000):
				t.Errorf("metadata.extracted = %+v, want 2000 characters kept and 65478 remaining", x)
			}
			// usage counts what the model reads: the extracted text.
			if routing == "text" && res.Usage != routingpkg.TextUsage(got) {
				t.Errorf("usage %+v, want %+v (the content's text)", res.Usage, routingpkg.TextUsage(got))
			}
			// The model reads exactly this: the assembly's tool message carries the same text.
			var tool string
			if routing == "text" {
				if err := json.Unmarshal(res.Assembly.ToolContent, &tool); err != nil || tool != got {
					t.Errorf("assembly toolContent %q (%v), want the content", tool, err)
				}
			}
		})
	}
}
